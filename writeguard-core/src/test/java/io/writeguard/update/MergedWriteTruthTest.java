package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.update.LockedTesting.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Updates;
import io.writeguard.testing.TestMongo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every caller of a group-commit round is answered with what its update alone would get, even
 * when a later caller of the round {@code $set}s the same path (merging skips the state between
 * them, which the server would have judged). Each test queues a caller whose lone update the
 * server refuses, then one whose {@code $set} of the same path would hide it, in one round; the
 * refused caller must fail as it fails alone, the other be written, and the version rise once.
 * Checks the embedded server leaves out are applied by {@link RuleStore}, as MongoDB applies
 * them.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MergedWriteTruthTest {
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private static Mutator set(String path, Object value) {
    return current -> Mutation.update(Updates.set(path, value));
  }

  private static Document nested(int levels) {
    Document value = new Document("leaf", 1);
    for (int i = 1; i < levels; i++) {
      value = new Document("n", value);
    }
    return value;
  }

  @Test
  void aValueNestedDeeperThanStorageAllowsIsNotHiddenByALaterSet() throws Exception {
    // path "v" is level 1; nested(180) adds 180 levels below it: 181 > 180, refused.
    assertTruth(RuleStore::tooDeep, 15, new Document("v", 0),
        set("v", nested(180)), set("v", 1));
  }

  @Test
  void aReplacementNestedTooDeepIsNotHiddenByALaterSet() throws Exception {
    assertTruth(RuleStore::tooDeep, 15, new Document("v", 0),
        current -> Mutation.replace(new Document("v", nested(180))), set("v", 1));
  }

  @Test
  void theDeepestValueStorageAllowsIsStillMerged() throws Exception {
    MongoCollection<Document> docs = fresh("deepOk");
    docs.insertOne(new Document("_id", "d").append("v", 0).append("version", 0L));
    RuleStore store = new RuleStore(docs, RuleStore::tooDeep, 15);
    List<Object> answers = round(store, "d", set("v", nested(179)), set("w", 1));
    assertThat(answers).allSatisfy(a -> assertThat(a).isInstanceOf(UpdateOutcome.class));
    assertThat(docs.find(eq("_id", "d")).first().getLong("version")).isEqualTo(2L);
    assertThat(store.refusals).hasValue(0);
  }

  @Test
  void aDollarNameInsideAValueIsNotHiddenByALaterSetBefore50() throws Exception {
    assertTruth(RuleStore::hasDollarName, 52, new Document("v", 0),
        set("v", new Document("$x", 1)), set("v", new Document("x", 1)));
  }

  @Test
  void aBadGeometryUnderA2dsphereIndexIsNotHiddenByALaterSet() throws Exception {
    assertTruth(RuleStore.badPoint("loc"), 16755, point(1, 1),
        set("loc", point(500, 1).get("loc")), set("loc", point(2, 2).get("loc")),
        "{v: 2, key: {loc: '2dsphere'}, name: 'loc_2dsphere', '2dsphereIndexVersion': 3}");
  }

  @Test
  void anArrayUnderAHashedIndexIsNotHiddenByALaterSet() throws Exception {
    assertTruth(doc -> doc.containsKey("h") && doc.get("h").isArray(), 16766,
        new Document("h", 0), set("h", List.of(1, 2)), set("h", 3),
        "{v: 2, key: {h: 'hashed'}, name: 'h_hashed'}");
  }

  @Test
  void parallelArraysUnderACompoundIndexAreNotHiddenByALaterSet() throws Exception {
    assertTruth(doc -> doc.get("a") != null && doc.get("a").isArray()
        && doc.get("b") != null && doc.get("b").isArray(), 171,
        new Document("a", 0).append("b", List.of(1)), set("a", List.of(2)), set("a", 3),
        "{v: 2, key: {a: 1, b: 1}, name: 'a_1_b_1'}");
  }

  @Test
  void anUnsupportedLanguageInAnEmbeddedDocumentUnderATextIndexIsNotHiddenByALaterSet()
      throws Exception {
    // Text key generation takes the language of each embedded document it descends into on
    // the way to a weighted field: {meta: {title: .., language: 'klingon'}} is refused (17262)
    // by an index weighting meta.title, as a top-level language would be.
    assertTruth(doc -> {
      org.bson.BsonValue meta = doc.get("meta");
      return meta != null && meta.isDocument() && "klingon".equals(meta.asDocument()
          .getString("language", new org.bson.BsonString("english")).getValue());
    }, 17262, new Document("meta", new Document("title", "hello").append("language", "english")),
        set("meta.language", "klingon"), set("meta.language", "spanish"),
        "{v: 2, key: {_fts: 'text', _ftsx: 1}, name: 'meta.title_text',"
            + " weights: {'meta.title': 1}, default_language: 'english',"
            + " language_override: 'language', textIndexVersion: 3}");
  }

  @Test
  void anIndexOnTheVersionFieldJudgesTheVersionEachLoneUpdateWouldStore() throws Exception {
    // Every writer raises the version; a merged round of two stores read + 2 and skips
    // read + 1, which a unique index covering the version field judges for a lone update.
    MongoCollection<Document> docs = fresh("versionIndex");
    docs.insertOne(new Document("_id", "other").append("version", 1L));
    docs.insertOne(new Document("_id", "d").append("a", 0).append("b", 0)
        .append("version", 0L));
    docs.createIndex(new Document("version", 1), new IndexOptions().unique(true));
    MongoStore store = new MongoStore(docs, () -> 0L);
    List<Object> answers = round(store, "d", set("a", 1), set("b", 2));
    assertThat(answers.get(0)).as("alone, version 0 -> 1 is a duplicate key")
        .isInstanceOf(DuplicateKeyWriteException.class);
    assertThat(answers.get(1)).as("then alone as well, from version 0: a duplicate key too")
        .isInstanceOf(DuplicateKeyWriteException.class);
    assertThat(docs.find(eq("_id", "d")).first().getLong("version")).isEqualTo(0L);
  }

  @Test
  void anIndexOnTheVersionFieldCreatedSinceTheReadMakesTheSkippedWriterUnsure()
      throws Exception {
    MongoCollection<Document> docs = fresh("versionIndexLate");
    docs.insertOne(new Document("_id", "other").append("version", 1L));
    docs.insertOne(new Document("_id", "d").append("a", 0).append("b", 0)
        .append("version", 0L));
    MongoStore store = new MongoStore(docs, () -> 0L);
    assertThat(store.constraints().indexes()).as("read before the index exists").isEmpty();
    docs.createIndex(new Document("version", 1), new IndexOptions().unique(true));
    List<Object> answers = round(store, "d", set("a", 1), set("b", 2));
    assertThat(answers.get(0)).as("its lone version 1 may have been refused")
        .isInstanceOf(WriteOutcomeUnknownException.class);
    assertThat(answers.get(1)).isInstanceOfSatisfying(UpdateOutcome.class,
        o -> assertThat(o.written()).isTrue());
  }

  @Test
  void callersOfPathsNoIndexCoversStillMergeUnderSuchIndexes() throws Exception {
    MongoCollection<Document> docs = fresh("others");
    docs.insertOne(new Document("_id", "d").append("h", 0).append("n", 0)
        .append("version", 0L));
    RuleStore store = new RuleStore(docs, doc -> false, 0,
        "{v: 2, key: {h: 'hashed'}, name: 'h_hashed'}");
    List<Object> answers = round(store, "d", set("h", 1),
        current -> Mutation.update(Updates.inc("n", 1)), set("m", 2));
    assertThat(answers).allSatisfy(a -> assertThat(a).isInstanceOf(UpdateOutcome.class));
    assertThat(store.writes).as("one merged write").hasValue(1);
    assertThat(docs.find(eq("_id", "d")).first().getLong("version")).isEqualTo(3L);
  }

  private static Document point(double lng, double lat) {
    return new Document("loc", new Document("type", "Point")
        .append("coordinates", List.of(lng, lat)));
  }

  /**
   * The refused caller alone, then in one round before a caller whose {@code $set} would
   * hide it: it must fail both times with the same error, and only the other be written.
   */
  private void assertTruth(Predicate<BsonDocument> rule, int code, Document fields,
      Mutator refused, Mutator hiding, String... indexes) throws Exception {
    MongoCollection<Document> docs = fresh("truth" + code);
    for (String id : List.of("alone", "d")) {
      Document doc = new Document("_id", id);
      doc.putAll(fields);
      docs.insertOne(doc.append("version", 0L));
    }
    RuleStore store = new RuleStore(docs, rule, code, indexes);
    VersionedUpdater updater = new VersionedUpdater.Builder(store).build();
    Throwable alone = failure(() -> updater.updateOne("alone", refused));
    assertThat(serverCode(alone)).as("the server refuses it alone").isEqualTo(code);

    List<Object> answers = round(store, "d", refused, hiding);
    assertThat(answers.get(0)).as("the refused caller, in a round with a later $set")
        .isInstanceOf(alone.getClass());
    assertThat(serverCode((Throwable) answers.get(0))).isEqualTo(code);
    assertThat(answers.get(1)).isInstanceOfSatisfying(UpdateOutcome.class,
        o -> assertThat(o.written()).isTrue());
    Document stored = docs.find(eq("_id", "d")).first();
    assertThat(stored.getLong("version")).as("one caller was written").isEqualTo(1L);
  }

  /** The callers in one round (behind a held one that writes nothing): answer or failure. */
  private List<Object> round(Store store, String id, Mutator... callers) throws Exception {
    VersionedUpdater updater = new VersionedUpdater.Builder(store).build();
    LockedTesting.HeldBatch held = new LockedTesting.HeldBatch(pool,
        m -> updater.updateOne(id, m), () -> updater.waiting(id), c -> Mutation.none());
    List<Future<UpdateOutcome>> fs = new ArrayList<>();
    for (Mutator m : callers) {
      fs.add(held.queue(m));
    }
    held.release();
    List<Object> answers = new ArrayList<>();
    for (Future<UpdateOutcome> f : fs) {
      try {
        answers.add(f.get(60, TimeUnit.SECONDS));
      } catch (ExecutionException e) {
        answers.add(e.getCause());
      }
    }
    return answers;
  }

  // ---- the index list is cached: a unique index created inside that window ----

  @Test
  void aUniqueIndexCreatedSinceTheIndexesWereReadCannotLetARefusedCallerBeToldWritten()
      throws Exception {
    MongoCollection<Document> docs = fresh("window");
    docs.insertOne(new Document("_id", "other").append("tag", "taken"));
    docs.insertOne(new Document("_id", "d").append("tag", "mine").append("version", 0L));
    MongoStore store = new MongoStore(docs, () -> 0L); // the cache never runs out
    assertThat(store.constraints().indexesTouchedBy(new String[] {"tag"}))
        .as("read before the index exists").isEmpty();
    docs.createIndex(new Document("tag", 1), new IndexOptions().unique(true));

    List<Object> answers = round(store, "d", set("tag", "taken"), set("tag", "free"));
    assertThat(answers.get(0)).as("the caller whose lone $set is a duplicate key: its change"
        + " went out merged, and whether the index existed then cannot be known")
        .isInstanceOf(WriteOutcomeUnknownException.class);
    assertThat(answers.get(1)).isInstanceOfSatisfying(UpdateOutcome.class,
        o -> assertThat(o.written()).isTrue());
    assertThat(docs.find(eq("_id", "d")).first().getString("tag")).isEqualTo("free");

    // From now on the index is known: the next such round answers as lone updates would.
    List<Object> next = round(store, "d", set("tag", "taken"), set("tag", "again"));
    assertThat(next.get(0)).isInstanceOf(DuplicateKeyWriteException.class);
    assertThat(next.get(1)).isInstanceOf(UpdateOutcome.class);
  }

  @Test
  void anIndexCreatedSinceTheReadThatOneWriterAloneTouchesChangesNoAnswer() throws Exception {
    MongoCollection<Document> docs = fresh("windowOne");
    docs.insertOne(new Document("_id", "d").append("tag", "mine").append("n", 0)
        .append("version", 0L));
    MongoStore store = new MongoStore(docs, () -> 0L);
    assertThat(store.constraints().indexesTouchedBy(new String[] {"tag"})).isEmpty();
    docs.createIndex(new Document("tag", 1), new IndexOptions().unique(true));
    List<Object> answers = round(store, "d", set("tag", "new"),
        current -> Mutation.update(Updates.inc("n", 1)));
    assertThat(answers).allSatisfy(a -> assertThat(a).isInstanceOf(UpdateOutcome.class));
    Document stored = docs.find(eq("_id", "d")).first();
    assertThat(stored.getString("tag")).isEqualTo("new");
    assertThat(stored.getLong("version")).isEqualTo(2L);
  }

  @Test
  void aRefusedMergedWriteRereadsTheIndexesSoTheNextRoundAnswersTheRefusedCallerAsAlone()
      throws Exception {
    MongoCollection<Document> docs = fresh("reread");
    docs.insertOne(new Document("_id", "other").append("tag", "taken"));
    docs.insertOne(new Document("_id", "d").append("tag", "mine").append("n", 0)
        .append("version", 0L));
    MongoStore store = new MongoStore(docs, () -> 0L);
    assertThat(store.constraints().indexesTouchedBy(new String[] {"tag"})).isEmpty();
    docs.createIndex(new Document("tag", 1), new IndexOptions().unique(true));
    VersionedUpdater updater = new VersionedUpdater.Builder(store).build();
    LockedTesting.HeldBatch held = new LockedTesting.HeldBatch(pool,
        m -> updater.updateOne("d", m), () -> updater.waiting("d"), c -> Mutation.none());
    // Round 2: b ($set tag: taken) merged with a ($inc n): refused as a whole (duplicate key).
    Future<UpdateOutcome> b = held.queue(set("tag", "taken"));
    CountDownLatch aInside = new CountDownLatch(1);
    CountDownLatch aGo = new CountDownLatch(1);
    Future<UpdateOutcome> a = held.queue(current -> {
      aInside.countDown();
      try {
        aGo.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return Mutation.update(Updates.inc("n", 1));
    });
    held.release();
    assertThat(aInside.await(60, TimeUnit.SECONDS)).isTrue();
    // Queued while round 2 runs: they meet after its refused write.
    Future<UpdateOutcome> c = queue(updater, "d", set("tag", "taken"));
    Future<UpdateOutcome> d = queue(updater, "d", set("tag", "free"));
    aGo.countDown();

    assertThat(failure(() -> b.get(60, TimeUnit.SECONDS)))
        .isInstanceOf(DuplicateKeyWriteException.class);
    assertThat(a.get(60, TimeUnit.SECONDS).written()).isTrue();
    assertThat(failure(() -> c.get(60, TimeUnit.SECONDS)))
        .as("c alone is a duplicate key, and the indexes were read again since round 2")
        .isInstanceOf(DuplicateKeyWriteException.class);
    assertThat(d.get(60, TimeUnit.SECONDS).written()).isTrue();
    Document stored = docs.find(eq("_id", "d")).first();
    assertThat(stored.getString("tag")).isEqualTo("free");
    assertThat(stored.getLong("version")).as("a and d written").isEqualTo(2L);
  }

  private Future<UpdateOutcome> queue(VersionedUpdater updater, String id, Mutator m) {
    int before = updater.waiting(id);
    Future<UpdateOutcome> f = pool.submit(() -> updater.updateOne(id, m));
    waitUntil(() -> updater.waiting(id) == before + 1);
    return f;
  }

  // ---- _id in a merged replacement round ----

  @Test
  void aMergedReplacementPutsIdFirstAsTheServerDoesForALoneReplacement() throws Exception {
    // MongoDB's update stage moves _id to the front of every document it updates (a
    // replacement that puts it elsewhere included): alone, {a: 1, _id: 'd'} is stored as
    // {_id: 'd', a: 1, version: 1}. The merged round's replacement must put it there itself.
    // (The embedded server stores replacements in an order of its own, so what is sent is
    // checked.)
    MongoCollection<Document> docs = fresh("idFirst");
    docs.insertOne(new Document("_id", "d").append("old", 1).append("version", 0L));
    RuleStore store = new RuleStore(docs, doc -> false, 0);
    List<Object> answers = round(store, "d",
        current -> Mutation.replace(new Document("a", 1).append("_id", "d")),
        set("b", 2));
    assertThat(answers).allSatisfy(x -> assertThat(x).isInstanceOf(UpdateOutcome.class));
    assertThat(store.replacements).as("one merged replacement").hasSize(1);
    assertThat(new ArrayList<>(store.replacements.get(0).keySet()))
        .containsExactly("_id", "a", "version", "b");
    assertThat(docs.find(eq("_id", "d")).first().getLong("version")).isEqualTo(2L);
  }

  // ---- helpers ----

  private static MongoCollection<Document> fresh(String hint) {
    return TestMongo.freshDatabase("Truth" + hint).getCollection("docs");
  }

  private interface Call {
    Object run() throws Exception;
  }

  private static Throwable failure(Call call) {
    try {
      call.run();
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      return e;
    }
    throw new AssertionError("expected a failure, got an answer");
  }

  private static int serverCode(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof MongoWriteException w) {
        return w.getError().getCode();
      }
    }
    return -1;
  }
}
