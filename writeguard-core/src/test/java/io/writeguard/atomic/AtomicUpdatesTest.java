package io.writeguard.atomic;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.exists;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.result.UpdateResult;
import io.writeguard.path.FieldPath;
import io.writeguard.testing.TestMongo;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.types.Decimal128;
import org.junit.jupiter.api.Test;

class AtomicUpdatesTest {
  private static final FieldPath ITEM = FieldPath.of("infos").field("k").field("s").index(0);

  @Test
  void rendersTheOperatorOnTheDottedPath() {
    assertThat(render(AtomicUpdates.addToSet(ITEM.field("read"), "u1")))
        .isEqualTo(BsonDocument.parse("{$addToSet: {'infos.k.s.0.read': 'u1'}}"));
    assertThat(render(AtomicUpdates.push(ITEM.field("read"), "u1")))
        .isEqualTo(BsonDocument.parse("{$push: {'infos.k.s.0.read': 'u1'}}"));
    assertThat(render(AtomicUpdates.inc(FieldPath.of("balance"), 5L)))
        .isEqualTo(BsonDocument.parse("{$inc: {balance: {$numberLong: '5'}}}"));
    assertThat(render(AtomicUpdates.set(ITEM.field("title"), "x")))
        .isEqualTo(BsonDocument.parse("{$set: {'infos.k.s.0.title': 'x'}}"));
  }

  @Test
  void incRejectsAmountsThatAreNotFiniteBsonNumbers() {
    FieldPath p = FieldPath.of("n");
    assertThatThrownBy(() -> AtomicUpdates.inc(p, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("inc amount must be finite, was NaN");
    assertThatThrownBy(() -> AtomicUpdates.inc(p, Decimal128.POSITIVE_INFINITY))
        .hasMessage("inc amount must be finite, was Infinity");
    assertThatThrownBy(() -> AtomicUpdates.inc(p, BigInteger.TEN))
        .hasMessageContaining("was 10 (java.math.BigInteger)");
    assertThatThrownBy(() -> AtomicUpdates.inc(p, null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> AtomicUpdates.set(null, 1)).hasMessage("path must not be null");
  }

  /** The seed's route: many users mark one item read at once, twice each; no one is lost. */
  @Test
  void concurrentMarkAsReadLosesNothingAndAddsNoDuplicates() throws Exception {
    MongoCollection<Document> docs = TestMongo.freshDatabase("AtomicUpdates").getCollection("docs");
    docs.insertOne(Document.parse(
        "{_id: 1, infos: {k: {s: [{read: []}, {read: []}]}}}"));
    int users = 40;
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<UpdateResult>> results = new ArrayList<>();
      for (int u = 0; u < users; u++) {
        for (int click = 0; click < 2; click++) {
          String user = "user" + u;
          results.add(pool.submit(() -> docs.updateOne(
              and(eq("_id", 1), exists(ITEM.toString())),
              AtomicUpdates.addToSet(ITEM.field("read"), user))));
        }
      }
      for (Future<UpdateResult> r : results) {
        assertThat(r.get(30, TimeUnit.SECONDS).getMatchedCount()).isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
    Document doc = docs.find(eq("_id", 1)).first();
    Document first = (Document) doc.getEmbedded(List.of("infos", "k", "s"), List.class).get(0);
    List<String> read = first.getList("read", String.class);
    assertThat(read).hasSize(users).doesNotHaveDuplicates();
  }

  @Test
  void anExistenceFilterStopsAWriteToAnItemThatIsNotThere() {
    MongoCollection<Document> docs = TestMongo.freshDatabase("AtomicUpdates").getCollection("docs");
    docs.insertOne(Document.parse("{_id: 1, infos: {k: {s: [{read: []}]}}}"));
    FieldPath missing = FieldPath.of("infos").field("k").field("s").index("5");
    UpdateResult r = docs.updateOne(and(eq("_id", 1), exists(missing.toString())),
        AtomicUpdates.addToSet(missing.field("read"), "u1"));
    assertThat(r.getMatchedCount()).isZero();
    assertThat(docs.find(eq("_id", 1)).first().getEmbedded(List.of("infos", "k", "s"), List.class))
        .hasSize(1);
  }

  @Test
  void concurrentIncrementsSumExactly() throws Exception {
    MongoCollection<Document> docs = TestMongo.freshDatabase("AtomicUpdates").getCollection("counters");
    docs.insertOne(new Document("_id", "c").append("stats", new Document("hits", 0L)));
    FieldPath hits = FieldPath.of("stats").field("hits");
    int threads = 6;
    int perThread = 200;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(pool.submit(() -> {
          for (int i = 0; i < perThread; i++) {
            docs.updateOne(eq("_id", "c"), AtomicUpdates.inc(hits, 1L));
          }
        }));
      }
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(docs.find(eq("_id", "c")).first().getEmbedded(List.of("stats", "hits"), Long.class))
        .isEqualTo((long) threads * perThread);
  }

  private static BsonDocument render(Bson update) {
    return update.toBsonDocument(BsonDocument.class, MongoClientSettings.getDefaultCodecRegistry());
  }
}
