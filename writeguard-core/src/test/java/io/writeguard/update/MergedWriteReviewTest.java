package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Updates;
import io.writeguard.testing.TestMongo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Adversarial review of {@link MergedWrite} and its use in {@link BatchUpdate}. Each test is a
 * deterministic counterexample to the promise in MergedWrite's class comment (or to the
 * outcome a caller gets); see the report on branch {@code review} for real-MongoDB vs
 * embedded-server classification.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MergedWriteReviewTest {
  private static final MongoCollection<BsonDocument> DOCS = TestMongo
      .freshDatabase("MergedWriteReview").getCollection("docs", BsonDocument.class);
  private static final AtomicInteger IDS = new AtomicInteger();
  private static final JsonWriterSettings EXACT =
      JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  // ---------------------------------------------------------------------------------------
  // Finding 1 (real MongoDB, every version): an earlier caller's update that the server would
  // refuse (unique index; the same holds for a collection validator or the 16 MB limit) is
  // folded away by a later caller's $set of the same path; the merged write succeeds and the
  // refused caller is told its update was written.
  // ---------------------------------------------------------------------------------------

  @Test
  void aCallersDuplicateKeyIsHiddenWhenALaterCallerSetsTheSamePath() throws Exception {
    MongoCollection<Document> docs = TestMongo.freshDatabase("MergedWriteReviewUnique")
        .getCollection("docs");
    docs.createIndex(new Document("tag", 1), new IndexOptions().unique(true).sparse(true));
    docs.insertOne(new Document("_id", "other").append("tag", "taken"));
    docs.insertOne(new Document("_id", "d").append("tag", "mine").append("version", 0L));
    // The lone updates: the first is refused by the server.
    boolean loneFirstFailed;
    try {
      docs.updateOne(eq("_id", "d"), Updates.combine(Updates.set("tag", "taken"),
          Updates.inc("version", 1L)));
      loneFirstFailed = false;
    } catch (MongoException e) {
      loneFirstFailed = true;
    }
    assertThat(loneFirstFailed).as("the server refuses the first caller's lone update").isTrue();
    docs.updateOne(eq("_id", "d"), Updates.set("version", 0L));

    VersionedUpdater updater = VersionedUpdater.builder(docs).build();
    LockedTesting.HeldBatch held = new LockedTesting.HeldBatch(pool,
        m -> updater.updateOne("d", m), () -> updater.waiting("d"), c -> Mutation.none());
    Future<UpdateOutcome> bad = held.queue(c -> Mutation.update(Updates.set("tag", "taken")));
    Future<UpdateOutcome> good = held.queue(c -> Mutation.update(Updates.set("tag", "free")));
    held.release();
    assertThat(good.get(60, TimeUnit.SECONDS).written()).isTrue();
    Throwable badFailure = null;
    try {
      bad.get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      badFailure = e.getCause();
    }
    assertThat(badFailure)
        .as("the caller whose lone $set violates the unique index must not be told it was"
            + " written (merged write sent {$set: {tag: 'free'}} only)")
        .isInstanceOf(DuplicateKeyWriteException.class);
  }

  // ---------------------------------------------------------------------------------------
  // Finding 2 (real MongoDB): the documents returned to a merged round's callers are computed
  // from the round's read, so they do not show a write made meanwhile by a writer that does not
  // raise the version (a lone findOneAndUpdate would). Kept, and documented: such writers may
  // only change fields no mutator reads (docs/optimistic-updates.md, "Mixing writers"), the
  // stored document keeps their write, and an exact copy for every caller cannot be rebuilt
  // from the final document. This test pins that documented behaviour.
  // ---------------------------------------------------------------------------------------

  @Test
  void theDocumentReturnedAfterAMergedWriteIsComputedFromTheRoundsRead() throws Exception {
    MongoCollection<Document> docs = TestMongo.freshDatabase("MergedWriteReviewAfter")
        .getCollection("docs");
    docs.insertOne(new Document("_id", "d").append("n", 0L).append("version", 0L));
    VersionedUpdater updater = VersionedUpdater.builder(docs).build();
    LockedTesting.HeldBatch held = new LockedTesting.HeldBatch(pool,
        m -> updater.update("d", m), () -> updater.waiting("d"), c -> Mutation.none());
    List<Future<UpdateOutcome>> fs = new ArrayList<>();
    fs.add(held.queue(c -> Mutation.update(Updates.inc("n", 1L))));
    fs.add(held.queue(c -> {
      // A foreign writer (no version raise) between the round's read and its write.
      docs.updateOne(eq("_id", "d"), Updates.inc("n", 10L));
      return Mutation.update(Updates.inc("n", 1L));
    }));
    held.release();
    UpdateOutcome last = fs.get(1).get(60, TimeUnit.SECONDS);
    UpdateOutcome first = fs.get(0).get(60, TimeUnit.SECONDS);
    Document stored = docs.find(eq("_id", "d")).first();
    assertThat(stored.getLong("n")).as("the merged $inc kept the foreign write").isEqualTo(12L);
    assertThat(last.version()).isEqualTo(stored.getLong("version"));
    assertThat(first.document().orElseThrow().getLong("n")).isEqualTo(1L);
    assertThat(last.document().orElseThrow().getLong("n"))
        .as("the callers' changes on the document as the round read it").isEqualTo(2L);
  }

  // ---------------------------------------------------------------------------------------
  // Finding 3 (embedded server and MongoDB < 5.0, which create the fields of one update in the
  // update document's order; MongoDB 5.0+ creates them by name and is not affected): one
  // caller's update creating two fields of one embedded document is split across two operator
  // groups by the merge ($set of an earlier caller comes first), so the new fields are created
  // in another order than the caller's lone update creates them. Rule 4 skips keys "all from
  // one caller", assuming the merged update creates them "as a lone update would".
  // ---------------------------------------------------------------------------------------

  @Test
  void oneCallersNewFieldsAreCreatedInTheOrderOfItsOwnUpdate() {
    BsonDocument read = BsonDocument.parse(
        "{p: {a: 0, b: 0}, x: 0, version: {$numberLong: '3'}}");
    BsonDocument foreign = BsonDocument.parse("{$unset: {'p.a': '', 'p.b': ''}}");
    compare(read, foreign, "{$set: {x: 1}}", "{$inc: {'p.b': 1}, $set: {'p.a': 1}}");
  }

  // ---------------------------------------------------------------------------------------
  // Harness: as MergedWritePropertyTest / Round.run.
  // ---------------------------------------------------------------------------------------

  private record Merged(int accepted, List<BsonDocument> updates, BsonDocument update,
      BsonDocument guard) {}

  private static Merged merge(BsonDocument read, String... updates) {
    BsonDocument state = read;
    MergedWrite merged = MergedWrite.ofOperators(read);
    List<BsonDocument> accepted = new ArrayList<>();
    for (String json : updates) {
      BsonDocument update = BsonDocument.parse(json);
      BsonDocument next = InMemoryUpdate.apply(state, update);
      if (!merged.add(update, next)) {
        break;
      }
      next.put("version",
          new BsonInt64(read.getInt64("version").getValue() + accepted.size() + 1));
      accepted.add(update);
      state = next;
    }
    return new Merged(accepted.size(), accepted,
        merged.update("version", accepted.size(), state), merged.guard());
  }

  /** Foreign write then lone updates vs foreign write then the merged update: exact JSON. */
  private static void compare(BsonDocument read, BsonDocument foreign, String... updates) {
    Merged m = merge(read, updates);
    assertThat(m.accepted).as("all callers merged").isEqualTo(updates.length);
    BsonValue lone = insert(read);
    if (foreign != null) {
      DOCS.updateOne(Filters.eq("_id", lone), foreign);
    }
    boolean loneFailed = false;
    for (BsonDocument update : m.updates) {
      BsonDocument withVersion = update.clone();
      BsonDocument inc = withVersion.containsKey("$inc") ? withVersion.getDocument("$inc")
          : new BsonDocument();
      inc.put("version", new BsonInt64(1));
      withVersion.put("$inc", inc);
      try {
        DOCS.updateOne(Filters.eq("_id", lone), withVersion);
      } catch (MongoException e) {
        loneFailed = true;
      }
    }
    BsonValue batched = insert(read);
    if (foreign != null) {
      DOCS.updateOne(Filters.eq("_id", batched), foreign);
    }
    long matched;
    try {
      matched = DOCS.updateOne(Store.withGuard(Filters.eq("_id", batched), m.guard,
          DOCS.getCodecRegistry()), m.update).getMatchedCount();
    } catch (MongoException refused) {
      return;
    }
    if (matched == 0) {
      return; // a guard missed: a conflict, the round reads again
    }
    assertThat(loneFailed).as("a lone update failed where the merged write succeeded").isFalse();
    assertThat(withoutId(batched)).as("merged write %s guard %s", m.update.toJson(EXACT),
        m.guard).isEqualTo(withoutId(lone));
  }

  private static BsonValue insert(BsonDocument doc) {
    BsonDocument copy = new BsonDocument("_id", new BsonInt32(IDS.incrementAndGet()));
    copy.putAll(doc.clone());
    DOCS.insertOne(copy);
    return copy.get("_id");
  }

  private static String withoutId(BsonValue id) {
    BsonDocument doc = DOCS.find(Filters.eq("_id", id)).first();
    doc.remove("_id");
    return doc.toJson(EXACT);
  }
}
