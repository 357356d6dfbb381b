package io.writeguard.version;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.testing.TestMongo;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class VersionAuditorTest {
  private MongoCollection<BsonDocument> docs;

  @BeforeEach
  void seedEveryKindOfBadVersion() {
    docs = TestMongo.freshDatabase("VersionAuditor").getCollection("docs", BsonDocument.class);
    insert(1, null); // missing
    insert(2, BsonNull.VALUE);
    insert(3, new BsonString("12"));
    insert(4, new BsonString("abc"));
    insert(5, new BsonDouble(3.0));
    insert(6, new BsonDouble(2.5));
    insert(7, new BsonInt64(-1));
    insert(8, new BsonInt32(7));
    insert(9, new BsonInt64(4)); // healthy
    insert(10, new BsonObjectId());
    insert(11, BsonBoolean.TRUE);
    insert(12, new BsonArray(List.of(new BsonInt64(1))));
    insert(13, new BsonInt64(0)); // healthy
  }

  @Test
  void scanCountsEveryKind() {
    AuditReport report = auditor().scan();
    assertThat(report.scanned()).isEqualTo(13);
    assertThat(nonZero(report.counts())).containsExactlyInAnyOrderEntriesOf(Map.of(
        VersionProblem.MISSING, 1L, VersionProblem.NULL, 1L, VersionProblem.INT32, 1L,
        VersionProblem.INTEGRAL_DOUBLE, 1L, VersionProblem.DIGIT_STRING, 1L,
        VersionProblem.NEGATIVE, 1L, VersionProblem.FRACTIONAL, 1L,
        VersionProblem.OTHER_STRING, 1L, VersionProblem.OTHER_TYPE, 3L));
    assertThat(report.problems()).isEqualTo(11);
    assertThat(report.fixable()).isEqualTo(5);
    assertThat(report.needsPerson()).isEqualTo(6);
    assertThat(report.isClean()).isFalse();
    assertThat(report.namespace()).endsWith(".docs");
    assertThat(report.samples(VersionProblem.OTHER_TYPE)).extracting(f -> f.id().asInt32().getValue())
        .containsExactly(10, 11, 12);
  }

  @Test
  void samplesAreCappedButCountsAreNot() {
    AuditReport report = VersionAuditor.builder(docs).sampleLimit(2).build().scan();
    assertThat(report.count(VersionProblem.OTHER_TYPE)).isEqualTo(3);
    assertThat(report.samples(VersionProblem.OTHER_TYPE)).hasSize(2);
    assertThat(VersionAuditor.builder(docs).sampleLimit(0).build().scan()
        .samples(VersionProblem.MISSING)).isEmpty();
  }

  @Test
  void fixRepairsOnlyWhatHasOneMeaningAndLeavesTheRest() {
    FixReport fix = auditor().fix();
    assertThat(fix.changedConcurrently()).isZero();
    assertThat(fix.needsPerson()).isEqualTo(6);
    for (VersionProblem p : List.of(VersionProblem.MISSING, VersionProblem.NULL,
        VersionProblem.DIGIT_STRING)) {
      assertThat(fix.fixed(p)).as("%s", p).isEqualTo(1);
    }
    assertThat(version(1)).isEqualTo(new BsonInt64(0));
    assertThat(version(2)).isEqualTo(new BsonInt64(0));
    assertThat(version(3)).isEqualTo(new BsonInt64(12));
    // MongoDB converts with $set; the embedded server by the guarded whole-document replace
    assertThat(fix.fixed()).isEqualTo(5);
    assertThat(fix.notAppliedByServer()).isZero();
    assertThat(version(5)).isEqualTo(new BsonInt64(3));
    assertThat(version(8)).isEqualTo(new BsonInt64(7));
    // left for a person, untouched
    assertThat(version(4)).isEqualTo(new BsonString("abc"));
    assertThat(version(6)).isEqualTo(new BsonDouble(2.5));
    assertThat(version(7)).isEqualTo(new BsonInt64(-1));
    assertThat(version(11)).isEqualTo(BsonBoolean.TRUE);

    AuditReport after = auditor().scan();
    assertThat(after.fixable()).isEqualTo(fix.notAppliedByServer());
    assertThat(after.needsPerson()).isEqualTo(6);
    assertThat(auditor().fix().fixed()).as("a second fix finds nothing to do").isZero();
  }

  /** Every fixable document is changed by "another writer" between scan and fix. */
  @Test
  void aValueChangedBetweenScanAndFixIsNeverOverwritten() {
    List<VersionFinding> found = new ArrayList<>();
    auditor().scan(found::add);
    // same number, other type: a plain {version: 3.0} filter would still match these
    rewrite(5, new BsonInt32(3));
    rewrite(8, new BsonDouble(7.0));
    // a writer initialised or bumped the version
    docs.updateOne(eq("_id", 1), Updates.set("version", new BsonInt64(5)));
    docs.updateOne(eq("_id", 2), Updates.set("version", new BsonString("x")));
    docs.deleteOne(eq("_id", 3));

    List<FixOutcome> outcomes = new ArrayList<>();
    for (VersionFinding f : found) {
      outcomes.add(auditor().fix(f));
    }
    assertThat(outcomes).containsOnly(FixOutcome.CHANGED_CONCURRENTLY, FixOutcome.NEEDS_PERSON);
    assertThat(Collections.frequency(outcomes, FixOutcome.CHANGED_CONCURRENTLY)).isEqualTo(5);
    assertThat(version(5)).isEqualTo(new BsonInt32(3));
    assertThat(version(5).getBsonType()).isEqualTo(BsonType.INT32);
    assertThat(version(8)).isEqualTo(new BsonDouble(7.0));
    assertThat(version(1)).isEqualTo(new BsonInt64(5));
    assertThat(version(2)).isEqualTo(new BsonString("x"));
    assertThat(docs.countDocuments(eq("_id", 3))).isZero();
  }

  @Test
  void aFindingStillCurrentIsFixedByItself() {
    List<VersionFinding> found = new ArrayList<>();
    auditor().scan(found::add);
    VersionFinding digits = found.stream()
        .filter(f -> f.problem() == VersionProblem.DIGIT_STRING).findFirst().orElseThrow();
    assertThat(auditor().fix(digits)).isEqualTo(FixOutcome.FIXED);
    assertThat(auditor().fix(digits)).isEqualTo(FixOutcome.CHANGED_CONCURRENTLY);
    assertThat(version(3)).isEqualTo(new BsonInt64(12));
  }

  /**
   * Writers increment versions while the fix runs: each document gets exactly one {@code $inc}
   * (missing + inc = 1; fixed 0 + inc = 1). An unconditional repair would reset some to 0.
   */
  @Test
  void fixRacingRealWritersLosesNoIncrement() throws Exception {
    MongoCollection<BsonDocument> race =
        TestMongo.freshDatabase("VersionAuditorRace").getCollection("docs", BsonDocument.class);
    int n = 1000;
    List<BsonDocument> batch = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      batch.add(new BsonDocument("_id", new BsonInt32(i)));
    }
    race.insertMany(batch);
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      order.add(i);
    }
    Collections.shuffle(order, new java.util.Random(42));
    ExecutorService pool = Executors.newFixedThreadPool(2);
    CountDownLatch start = new CountDownLatch(1);
    try {
      Future<?> writer = pool.submit(() -> {
        start.await();
        for (int id : order) {
          race.updateOne(eq("_id", id), Updates.inc("version", 1L));
        }
        return null;
      });
      Future<FixReport> fixer = pool.submit(() -> {
        start.await();
        return VersionAuditor.builder(race).build().fix();
      });
      start.countDown();
      writer.get(60, TimeUnit.SECONDS);
      FixReport report = fixer.get(60, TimeUnit.SECONDS);
      assertThat(report.fixed() + report.changedConcurrently())
          .isEqualTo(report.found().count(VersionProblem.MISSING));
    } finally {
      pool.shutdownNow();
    }
    for (BsonDocument d : race.find()) {
      assertThat(d.get("version")).as("doc %s", d.get("_id")).isEqualTo(new BsonInt64(1));
    }
    assertThat(race.countDocuments()).isEqualTo(n);
  }

  @Test
  void builderNamesBadSettings() {
    assertThatThrownBy(() -> VersionAuditor.builder(docs).versionField("$v"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("versionField must be a top-level field name, was '$v'");
    assertThatThrownBy(() -> VersionAuditor.builder(docs).versionField("meta.version"))
        .hasMessageContaining("contains '.'");
    assertThatThrownBy(() -> VersionAuditor.builder(docs).versionField(""))
        .hasMessageContaining("was ''");
    assertThatThrownBy(() -> VersionAuditor.builder(docs).versionField("_id"))
        .hasMessage("versionField must not be '_id'");
    assertThatThrownBy(() -> VersionAuditor.builder(docs).sampleLimit(-1))
        .hasMessage("sampleLimit must be >= 0, was -1");
  }

  @Test
  void anotherVersionFieldIsAuditedOnItsOwn() {
    docs.updateOne(eq("_id", 9), Updates.set("rev", new BsonString("3")));
    AuditReport report = VersionAuditor.builder(docs).versionField("rev").build().scan();
    assertThat(report.count(VersionProblem.MISSING)).isEqualTo(12);
    assertThat(report.count(VersionProblem.DIGIT_STRING)).isEqualTo(1);
    assertThat(report.versionField()).isEqualTo("rev");
  }

  @Test
  void anUnreachableServerIsATypedFailureNamingTheCollection() {
    try (MongoClient dead = MongoClients.create(
        "mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=200&connectTimeoutMS=200")) {
      MongoCollection<BsonDocument> c = dead.getDatabase("db").getCollection("c", BsonDocument.class);
      assertThatThrownBy(() -> VersionAuditor.builder(c).build().scan())
          .isInstanceOf(VersionAuditException.class)
          .hasMessageStartingWith("version audit of db.c stopped after reading 0 documents: ");
    }
  }

  private VersionAuditor auditor() {
    return VersionAuditor.builder(docs).build();
  }

  private void insert(int id, BsonValue version) {
    BsonDocument d = new BsonDocument("_id", new BsonInt32(id)).append("title", new BsonString("t" + id));
    if (version != null) {
      d.append("version", version);
    }
    docs.insertOne(d);
  }

  /** Replaces the version with another type, as a writer's full-document save would. */
  private void rewrite(int id, BsonValue version) {
    BsonDocument d = docs.find(eq("_id", id)).first();
    d.put("version", version);
    docs.replaceOne(eq("_id", id), d);
    assertThat(version(id).getBsonType()).isEqualTo(version.getBsonType());
  }

  private BsonValue version(int id) {
    return docs.find(eq("_id", id)).first().get("version");
  }

  private static Map<VersionProblem, Long> nonZero(Map<VersionProblem, Long> counts) {
    Map<VersionProblem, Long> out = new java.util.EnumMap<>(VersionProblem.class);
    counts.forEach((k, v) -> {
      if (v > 0) {
        out.put(k, v);
      }
    });
    return out;
  }
}
