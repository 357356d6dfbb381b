package io.writeguard.version;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.testing.TestMongo;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An int32 or integral-double version is converted to int64 on every server, and the
 * whole-document replace that does it on a server whose {@code $set} keeps an equal number's
 * type (the embedded one) never overwrites a write that lands between its read and its replace.
 * The competing write is made by the test hook at exactly that point.
 */
class VersionAuditorReplaceTest {
  private MongoCollection<BsonDocument> docs;

  @BeforeEach
  void seed() {
    docs = TestMongo.freshDatabase("VersionAuditorReplace").getCollection("docs", BsonDocument.class);
  }

  @Test
  void int32AndIntegralDoubleVersionsBecomeInt64AndNothingElseChanges() {
    BsonDocument a = doc(1, new BsonInt32(10));
    BsonDocument b = doc(2, new BsonDouble(3.0));
    docs.insertMany(List.of(a, b));

    FixReport fix = VersionAuditor.builder(docs).build().fix();

    assertThat(fix.fixed()).isEqualTo(2);
    assertThat(fix.notAppliedByServer()).isZero();
    assertThat(stored(1)).isEqualTo(a.clone().append("version", new BsonInt64(10)));
    assertThat(stored(2)).isEqualTo(b.clone().append("version", new BsonInt64(3)));
    assertThat(stored(1).get("version")).isInstanceOf(BsonInt64.class);
    assertThat(VersionAuditor.builder(docs).build().scan().isClean()).isTrue();
  }

  @Test
  void aWriteToAnotherFieldBetweenTheReadAndTheReplaceIsNeverOverwritten() {
    assertCompetingWriteWins(id -> docs.updateOne(eq("_id", id), Updates.set("n", 99)),
        d -> assertThat(d.get("n")).isEqualTo(new BsonInt32(99)));
  }

  @Test
  void aFieldAddedBetweenTheReadAndTheReplaceIsNeverDropped() {
    assertCompetingWriteWins(id -> docs.updateOne(eq("_id", id), Updates.set("added", true)),
        d -> assertThat(d.get("added")).isEqualTo(BsonBoolean.TRUE));
  }

  @Test
  void aFieldRemovedBetweenTheReadAndTheReplaceIsNeverRestored() {
    assertCompetingWriteWins(id -> docs.updateOne(eq("_id", id), Updates.unset("tags")),
        d -> assertThat(d.containsKey("tags")).isFalse());
  }

  @Test
  void anArrayThatNowHoldsTheReadArrayAsAnElementIsNeverReverted() {
    // A query {tags: [a, b]} matches [[a, b], c] too; the replace must not.
    BsonArray nested = new BsonArray(List.of(tags(), new BsonString("c")));
    assertCompetingWriteWins(id -> docs.updateOne(eq("_id", id), Updates.set("tags", nested)),
        d -> assertThat(d.get("tags")).isEqualTo(nested));
  }

  @Test
  void aNumberRetypedBetweenTheReadAndTheReplaceKeepsItsNewType() {
    // A replace, not $set: the embedded server's $set keeps an equal number's type.
    assertCompetingWriteWins(id -> docs.replaceOne(eq("_id", id),
            docs.find(eq("_id", id)).first().append("n", new BsonInt64(1))),
        d -> assertThat(d.get("n")).isEqualTo(new BsonInt64(1)));
  }

  @Test
  void aVersionBumpedBetweenTheReadAndTheReplaceIsNeverReset() {
    assertCompetingWriteWins(id -> docs.updateOne(eq("_id", id), Updates.inc("version", 1)),
        d -> assertThat(d.get("version").asNumber().longValue()).isEqualTo(11));
  }

  /**
   * Writers bump int32 versions and tag documents while the fix runs: every bump and every tag
   * survives, whichever of them lands first, and every version ends as the value 11.
   */
  @Test
  void fixRacingRealWritersLosesNoWrite() throws Exception {
    int n = 300;
    List<BsonDocument> batch = new ArrayList<>();
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      batch.add(doc(i, new BsonInt32(10)));
      order.add(i);
    }
    docs.insertMany(batch);
    Collections.shuffle(order, new Random(7));
    ExecutorService pool = Executors.newFixedThreadPool(2);
    CountDownLatch start = new CountDownLatch(1);
    FixReport report;
    try {
      Future<?> writer = pool.submit(() -> {
        start.await();
        for (int id : order) {
          docs.updateOne(eq("_id", id),
              Updates.combine(Updates.inc("version", 1), Updates.set("touched", true)));
        }
        return null;
      });
      Future<FixReport> fixer = pool.submit(() -> {
        start.await();
        return VersionAuditor.builder(docs).build().fix();
      });
      start.countDown();
      writer.get(120, TimeUnit.SECONDS);
      report = fixer.get(120, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    assertThat(report.fixed() + report.changedConcurrently() + report.notAppliedByServer())
        .isEqualTo(report.found().count(VersionProblem.INT32));
    for (BsonDocument d : docs.find()) {
      assertThat(d.get("version").asNumber().longValue()).as("doc %s", d.get("_id")).isEqualTo(11);
      assertThat(d.get("touched")).as("doc %s", d.get("_id")).isEqualTo(BsonBoolean.TRUE);
      assertThat(d.get("tags")).isEqualTo(tags());
    }
    assertThat(docs.countDocuments()).isEqualTo(n);
  }

  /** The hook writes after the auditor read the whole document and before it replaces it. */
  private void assertCompetingWriteWins(Consumer<BsonValue> competingWrite,
      Consumer<BsonDocument> writeIsThere) {
    docs.insertOne(doc(1, new BsonInt32(10)));
    List<BsonValue> hooked = new ArrayList<>();
    VersionAuditor auditor = VersionAuditor.builder(docs)
        .beforeReplace(id -> {
          hooked.add(id);
          competingWrite.accept(id);
        })
        .build();

    FixReport fix = auditor.fix();

    if (!TestMongo.isEmbedded()) {
      // MongoDB converts with the $set compare-and-set; the replace path never runs there.
      assertThat(hooked).isEmpty();
      assertThat(fix.fixed()).isEqualTo(1);
      return;
    }
    assertThat(hooked).as("the replace path ran").containsExactly(new BsonInt32(1));
    writeIsThere.accept(stored(1));
    assertThat(fix.changedConcurrently()).isEqualTo(1);
    assertThat(fix.fixed()).isZero();
  }

  private BsonDocument stored(int id) {
    return docs.find(eq("_id", id)).first();
  }

  private static BsonArray tags() {
    return new BsonArray(List.of(new BsonString("a"), new BsonString("b")));
  }

  private static BsonDocument doc(int id, BsonValue version) {
    return new BsonDocument("_id", new BsonInt32(id))
        .append("version", version)
        .append("n", new BsonInt32(1))
        .append("tags", tags())
        .append("nested", new BsonDocument("x", new BsonInt32(1))
            .append("list", new BsonArray(List.of(new BsonInt32(1), new BsonInt32(2)))));
  }
}
