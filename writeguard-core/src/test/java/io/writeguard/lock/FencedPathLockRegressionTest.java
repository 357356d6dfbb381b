package io.writeguard.lock;

import static com.mongodb.client.model.Updates.set;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import io.writeguard.path.FieldPath;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Regression: two path locks on disjoint paths of one document are held at the same time with
 * different tokens. Fencing the document with them made the lower-token holder's write fail as
 * "stale" once the higher-token holder had written, though neither had lost its lock.
 */
class FencedPathLockRegressionTest {
  private final MongoCollection<Document> data =
      TestMongo.freshDatabase("FencedPathLock").getCollection("docs");
  private final FencedWriter writer = FencedWriter.of(data);
  private final PathLockService paths = PathLockService.create();

  @Test
  void pathLocksOnDisjointPathsAreRefusedForFencingInsteadOfReportedStale() {
    data.insertOne(new Document("_id", "d").append("a", 0).append("b", 0));
    try (PathLockHandle onA = paths.acquire("d", List.of(FieldPath.parse("a")), Duration.ofSeconds(1));
        PathLockHandle onB = paths.acquire("d", List.of(FieldPath.parse("b")), Duration.ofSeconds(1))) {
      assertThat(onB.token()).isGreaterThan(onA.token()); // both held at once
      assertThatThrownBy(() -> writer.updateOne(onB, "d", set("b", 1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("path lock cannot fence a document");
      assertThatThrownBy(() -> writer.updateOne(onA, "d", set("a", 1)))
          .isInstanceOf(IllegalArgumentException.class)
          .isNotInstanceOf(StaleLockException.class);
    }
    assertThat(data.find().first().getInteger("a")).as("nothing written").isZero();
  }

  @Test
  void aWholeDocumentPathLockStillFences() {
    data.insertOne(new Document("_id", "w").append("a", 0));
    try (PathLockHandle whole = paths.acquire("w", Duration.ofSeconds(1))) {
      assertThat(writer.updateOne(whole, "w", set("a", 1))).isEqualTo(FencedWriter.Outcome.APPLIED);
    }
    assertThat(data.find().first().get("_fence")).isNotNull();
  }
}
