package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Updates;
import io.writeguard.atomic.AtomicUpdates;
import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.path.FieldPath;
import io.writeguard.testing.Concurrently;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Three kinds of writer on one document at once, with real threads: versioned read-change-write
 * (it rewrites the whole {@code log} array and {@code n} from what it read), version-raising
 * atomic operators, and fenced writes under a MongoDB lease lock. Every acknowledged write adds
 * one to {@code n} and one unique mark to {@code log}; afterwards every mark is there exactly
 * once, {@code n} is exact, and the version counts every write.
 */
class MixedWritersStressTest {
  private static final int UPDATERS = 3;
  private static final int ATOMICS = 2;
  private static final int FENCED = 2;
  private static final int PER_THREAD = 25;

  @Test
  void versionedAtomicAndFencedWritersOnOneDocumentLoseNothing() throws Exception {
    MongoDatabase db = TestMongo.freshDatabase("MixedStress");
    MongoCollection<Document> docs = db.getCollection("docs");
    VersionPolicy policy = VersionPolicy.defaults();
    VersionedInsert.insertOne(docs, policy,
        new Document("_id", "hot").append("n", 0L).append("log", List.of()));
    VersionedUpdater updater = VersionedUpdater.builder(docs)
        .retryPolicy(RetryPolicy.builder().maxAttempts(100_000).deadline(Duration.ofSeconds(90))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(20)).build())
        .build();
    AtomicUpdates.Versioned atomic = AtomicUpdates.versioned(policy);
    FencedWriter fenced = FencedWriter.builder(docs).versionPolicy(policy).build();

    try (MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "locks").build()) {
      Concurrently.run(UPDATERS + ATOMICS + FENCED, Duration.ofSeconds(120), thread -> {
        for (int i = 0; i < PER_THREAD; i++) {
          String mark = thread + "-" + i;
          if (thread < UPDATERS) {
            updater.update("hot", current -> {
              List<String> log = new ArrayList<>(current.getList("log", String.class));
              log.add(mark);
              return Mutation.update(Updates.combine(
                  Updates.set("n", current.getLong("n") + 1), Updates.set("log", log)));
            });
          } else if (thread < UPDATERS + ATOMICS) {
            docs.updateOne(eq("_id", "hot"), atomic.raising(Updates.combine(
                AtomicUpdates.inc(FieldPath.of("n"), 1L),
                AtomicUpdates.push(FieldPath.of("log"), mark))));
          } else {
            try (LockHandle lock = locks.acquire("hot", Duration.ofSeconds(60))) {
              assertThat(fenced.updateOne(lock, "hot", Updates.combine(
                  Updates.inc("n", 1L), Updates.push("log", mark))))
                  .isEqualTo(FencedWriter.Outcome.APPLIED);
            }
          }
        }
      });
    }

    int total = (UPDATERS + ATOMICS + FENCED) * PER_THREAD;
    Document stored = docs.find(eq("_id", "hot")).first();
    List<String> log = stored.getList("log", String.class);
    Set<String> expected = new HashSet<>();
    for (int t = 0; t < UPDATERS + ATOMICS + FENCED; t++) {
      for (int i = 0; i < PER_THREAD; i++) {
        expected.add(t + "-" + i);
      }
    }
    assertThat(log).hasSize(total);
    assertThat(new HashSet<>(log)).isEqualTo(expected);
    assertThat(stored.getLong("n")).isEqualTo(total);
    assertThat(stored.getLong("version")).isEqualTo(total);
  }
}
