package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import io.writeguard.testing.TestMongo;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.junit.jupiter.api.Test;

/**
 * Review of rule 4 of {@link MergedWrite} (new keys of one embedded document: at most one
 * missing from the read, the others required to exist) for callers after the second, now that
 * {@link MergeGuards} skips a caller that creates no key: such a caller must leave the guards
 * as they were, and a later caller that creates a second missing key in a document must still
 * be split off; the second caller, key or no key, checks the first caller's documents.
 */
class MergeGuardsLaterCallersReviewTest {
  private static final MongoCollection<BsonDocument> DOCS = TestMongo
      .freshDatabase("MergeGuardsLater").getCollection("docs", BsonDocument.class);
  private static final AtomicInteger IDS = new AtomicInteger();
  private static final JsonWriterSettings EXACT =
      JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();

  private static String json(String relaxed) {
    return BsonDocument.parse(relaxed).toJson();
  }

  @Test
  void aThirdCallerWithoutNewKeysKeepsTheGuardsAndAFourthWithASecondMissingKeyIsSplit() {
    MergedWriteTest.Round m = new MergedWriteTest.Round("{_id: 1, version: {$numberLong: '0'}, a: {p: 1}, n: 0}");
    assertThat(m.add("{$set: {'a.y': 1}}")).as("a.y: a new key in a").isTrue();
    assertThat(m.add("{$inc: {n: 1}}")).isTrue();
    String guardAfterSecond = m.guard();
    assertThat(guardAfterSecond).isEqualTo(json("{a: {$exists: true}, n: {$exists: true}}"));
    // No key of its own: only the type guard its composed $inc needs is added.
    assertThat(m.add("{$inc: {n: 2}, $set: {'a.y': 5}}")).isTrue();
    assertThat(m.guard()).isEqualTo(json("{a: {$exists: true}, n: {$exists: true,"
        + " $not: {$type: ['double', 'decimal']}}}"));
    // a.x would be the second key of a missing from the read: MongoDB 5.0+ would create
    // a.x and a.y in name order (x first), the callers one after another y first.
    String before = m.update();
    String guardBefore = m.guard();
    assertThat(m.add("{$set: {'a.x': 1}}")).as("a second missing key in a").isFalse();
    assertThat(m.update()).isEqualTo(before);
    assertThat(m.guard()).isEqualTo(guardBefore);
    // A key that exists in the read may still join, and is then required to exist.
    assertThat(m.add("{$set: {'a.p': 2}}")).isTrue();
    assertThat(m.guard()).isEqualTo(json("{a: {$exists: true, $not: {$type: 'array'}},"
        + " n: {$exists: true, $not: {$type: ['double', 'decimal']}},"
        + " 'a.p': {$exists: true}}"));
    assertThat(m.add("{$inc: {n: 1}}")).as("a fifth, without keys, after that").isTrue();
    sameAsOneAfterAnother(m, null);
    sameAsOneAfterAnother(m, "{$unset: {'a.p': ''}}"); // the guard misses: a conflict
    sameAsOneAfterAnother(m, "{$set: {n: 2.5}}");     // the type guard misses
    sameAsOneAfterAnother(m, "{$set: {q: 1}}");       // another field: merged all the same
  }

  @Test
  void aSecondCallerWithoutNewKeysStillGuardsTheKeysOfTheFirst() {
    MergedWriteTest.Round m = new MergedWriteTest.Round("{_id: 1, version: {$numberLong: '0'}, a: {x: 1}}");
    assertThat(m.add("{$set: {'a.y': 1, 'a.x': 2}}")).isTrue();
    assertThat(m.guard()).as("the first caller alone is sent as it is").isNull();
    assertThat(m.add("{$set: {'a.y': 3}}")).isTrue();
    assertThat(m.guard()).isEqualTo(
        json("{'a.x': {$exists: true}, a: {$not: {$type: 'array'}}}"));
    sameAsOneAfterAnother(m, null);
    sameAsOneAfterAnother(m, "{$unset: {'a.x': ''}}");
  }

  /**
   * On the server: a foreign write (none: {@code null}), then the accepted updates one after
   * another, or the merged write with its guards. Merged and applied, the two must be equal
   * (values, types, order); without a foreign write, the guards must hold.
   */
  private static void sameAsOneAfterAnother(MergedWriteTest.Round m, String foreign) {
    BsonValue lone = insert(m.read);
    BsonValue batched = insert(m.read);
    if (foreign != null) {
      DOCS.updateOne(Filters.eq("_id", lone), BsonDocument.parse(foreign));
      DOCS.updateOne(Filters.eq("_id", batched), BsonDocument.parse(foreign));
    }
    for (BsonDocument update : m.accepted) {
      BsonDocument withVersion = update.clone();
      BsonDocument inc = withVersion.containsKey("$inc") ? withVersion.getDocument("$inc")
          : new BsonDocument();
      inc.put("version", new BsonInt64(1));
      withVersion.put("$inc", inc);
      DOCS.updateOne(Filters.eq("_id", lone), withVersion);
    }
    BsonDocument filter = Store.withGuard(Filters.eq("_id", batched), m.merged.guard(),
        DOCS.getCodecRegistry());
    long matched = DOCS.updateOne(filter,
        m.merged.update("version", m.accepted.size(), m.state)).getMatchedCount();
    if (foreign == null) {
      assertThat(matched).as("the guards hold on the document read").isEqualTo(1);
    }
    if (matched == 1) {
      assertThat(withoutId(batched)).as("after %s", foreign).isEqualTo(withoutId(lone));
    }
  }

  private static BsonValue insert(BsonDocument doc) {
    BsonDocument copy = new BsonDocument("_id", new BsonInt32(IDS.incrementAndGet()));
    BsonDocument fields = doc.clone();
    fields.remove("_id");
    copy.putAll(fields);
    DOCS.insertOne(copy);
    return copy.get("_id");
  }

  private static String withoutId(BsonValue id) {
    BsonDocument doc = DOCS.find(Filters.eq("_id", id)).first();
    doc.remove("_id");
    return doc.toJson(EXACT);
  }
}
