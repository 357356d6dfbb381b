package io.writeguard.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import com.mongodb.client.result.UpdateResult;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link SnapshotMemoryCollection#queryDocuments} answers filters with an {@code _id} equality
 * through the {@code _id} index. These tests check that it matches exactly what the stock
 * collection's full scan matches (run side by side against a plain {@link MemoryBackend}), and
 * count the documents examined to show that a versioned write no longer scans.
 */
class IdIndexQueryTest {
  private static final ObjectId OID = new ObjectId("0123456789abcdef01234567");

  private static MongoServer patchedServer;
  private static MongoServer stockServer;
  private static SnapshotMemoryBackend patchedBackend;
  private static MongoClient patched;
  private static MongoClient stock;

  @BeforeAll
  static void startServers() {
    patchedBackend = new SnapshotMemoryBackend();
    patchedServer = new MongoServer(patchedBackend.version(ReportedVersion.MONGO_5_0));
    stockServer = new MongoServer(new MemoryBackend());
    patched = MongoClients.create(uri(patchedServer.bind()));
    stock = MongoClients.create(uri(stockServer.bind()));
  }

  @AfterAll
  static void stopServers() {
    patched.close();
    stock.close();
    patchedServer.shutdownNow();
    stockServer.shutdownNow();
  }

  private static String uri(java.net.InetSocketAddress address) {
    return "mongodb://127.0.0.1:" + address.getPort();
  }

  /** Documents whose ids are of several types, numbers among them of each numeric type. */
  private static List<Document> seed() {
    List<Document> docs = new ArrayList<>();
    docs.add(new Document("_id", 7).append("version", 1L).append("n", 5).append("_fence", 50));
    docs.add(new Document("_id", 8L).append("version", 1L).append("_fence", 10));
    docs.add(new Document("_id", 9.0).append("version", 2L).append("n", 1));
    docs.add(new Document("_id", "s").append("version", 1L).append("n", 0));
    docs.add(new Document("_id", OID).append("version", 3L));
    docs.add(new Document("_id", new Document("a", 1).append("b", "x")).append("version", 1L));
    docs.add(new Document("_id", 10).append("version", 1L).append("n", 5));
    return docs;
  }

  private static List<Bson> filters() {
    List<Bson> filters = new ArrayList<>();
    // Plain {_id, version}: the id as stored and as the other numeric types.
    for (Object id : List.of(7, 7L, 7.0, 8, 8L, 8.0, 9, 9L, 9.0, "s", OID, 99)) {
      filters.add(new Document("_id", id).append("version", 1L));
      filters.add(new Document("_id", id).append("version", 1));
      filters.add(new Document("_id", id).append("version", 2L));
    }
    filters.add(new Document("_id", new Document("a", 1).append("b", "x")).append("version", 1L));
    filters.add(new Document("_id", new Document("a", 1.0).append("b", "x")).append("version", 1));
    filters.add(new Document("_id", new Document("b", "x").append("a", 1)).append("version", 1));
    filters.add(new Document("_id", new Document("a", 1)).append("version", 1));
    // {$eq: v}
    filters.add(new Document("_id", new Document("$eq", 7L)).append("version", 1L));
    filters.add(new Document("_id", new Document("$eq", 7)).append("version", 3L));
    filters.add(new Document("_id", new Document("$eq", "s")).append("n", 0));
    // Fenced filters.
    filters.add(new Document("_id", 7).append("_fence", new Document("$lt", 100)));
    filters.add(new Document("_id", 7).append("_fence", new Document("$lt", 50)));
    filters.add(new Document("_id", 8.0).append("_fence", new Document("$lt", 11L)));
    filters.add(new Document("_id", 9).append("_fence", new Document("$lt", 100)));
    // Guards.
    filters.add(
        new Document("_id", 7).append("version", 1L).append("n", new Document("$exists", true)));
    filters.add(
        new Document("_id", 7).append("version", 1L).append("n", new Document("$exists", false)));
    filters.add(
        new Document("_id", 8).append("version", 1L).append("n", new Document("$exists", false)));
    // $and forms.
    filters.add(
        new Document(
            "$and", List.of(new Document("_id", 7), new Document("version", 1L))));
    filters.add(
        new Document(
            "$and",
            List.of(
                new Document("version", new Document("$gte", 1)),
                new Document("_id", new Document("$eq", 9L)))));
    filters.add(
        new Document(
            "$and", List.of(new Document("version", 1L), new Document("_id", 99))));
    filters.add(new Document("_id", 7).append("$and", List.of(new Document("_id", 8L))));
    filters.add(new Document("_id", 7).append("$and", List.of(new Document("_id", 7.0))));
    filters.add(
        new Document("_id", 7)
            .append("$or", List.of(new Document("version", 5), new Document("n", 5))));
    // Nested $and, as Filters.and(Filters.and(eq(_id), eq(version)), fence) renders a fenced
    // versioned write: a conjunct of a conjunct is a conjunct of the whole.
    filters.add(fenced(new Document("$and",
        List.of(new Document("_id", 7), new Document("version", 1L))), 50));
    filters.add(fenced(new Document("$and",
        List.of(new Document("_id", 7L), new Document("version", 1L))), 49));
    filters.add(fenced(new Document("$and",
        List.of(new Document("_id", 8.0), new Document("version", 2L))), 10));
    filters.add(new Document("$and", List.of(new Document("$and", List.of(
        new Document("$and", List.of(new Document("_id", new Document("$eq", 9L)))))))));
    filters.add(new Document("$and", List.of(new Document("$and", List.of(
        new Document("_id", 7), new Document("_id", 8))))));
    filters.add(new Document("$and", List.of(new Document("$or", List.of(
        new Document("_id", 7), new Document("_id", 8))))));
    // Not a plain equality: the stock path, results unchanged.
    filters.add(new Document("_id", new Document("$in", List.of(7, 8.0, "s"))).append("version", 1));
    filters.add(new Document("_id", new Document("$gt", 7)).append("version", 1));
    filters.add(new Document("_id", Pattern.compile("^s")).append("version", 1));
    filters.add(new Document("_id", null).append("version", 1));
    filters.add(new Document("_id", List.of(7, 8)).append("version", 1));
    filters.add(new Document("_id", new Document("$ne", 7)).append("version", 1));
    filters.add(new Document("version", 1L));
    return filters;
  }

  @Test
  void everyFilterMatchesAndUpdatesWhatTheStockFullScanDoes() {
    MongoCollection<Document> mine = fresh(patched, "same");
    MongoCollection<Document> theirs = fresh(stock, "same");
    int matchedSomething = 0;
    for (Bson filter : filters()) {
      String about = "filter " + filter;
      List<Document> expected = theirs.find(filter).into(new ArrayList<>());
      assertThat(mine.find(filter).into(new ArrayList<>())).as(about).isEqualTo(expected);
      assertThat(mine.countDocuments(filter)).as(about).isEqualTo(theirs.countDocuments(filter));

      UpdateResult one = mine.updateOne(filter, Updates.inc("hits", 1));
      UpdateResult other = theirs.updateOne(filter, Updates.inc("hits", 1));
      assertThat(one.getMatchedCount()).as(about).isEqualTo(other.getMatchedCount());
      assertThat(one.getModifiedCount()).as(about).isEqualTo(other.getModifiedCount());

      UpdateResult many = mine.updateMany(filter, Updates.inc("many", 1));
      assertThat(many.getMatchedCount())
          .as(about)
          .isEqualTo(theirs.updateMany(filter, Updates.inc("many", 1)).getMatchedCount());

      FindOneAndUpdateOptions after =
          new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER);
      assertThat(mine.findOneAndUpdate(filter, Updates.inc("cas", 1), after))
          .as(about)
          .isEqualTo(theirs.findOneAndUpdate(filter, Updates.inc("cas", 1), after));

      assertThat(mine.find().into(new ArrayList<>())).as(about).isEqualTo(theirs.find().into(new ArrayList<>()));
      if (!expected.isEmpty()) {
        matchedSomething++;
      }
    }
    // The filter list exercises both outcomes, and the stores ended up equal.
    assertThat(matchedSomething).isBetween(10, filters().size() - 10);

    for (Bson filter : filters()) {
      assertThat(mine.deleteOne(filter).getDeletedCount())
          .as("delete " + filter)
          .isEqualTo(theirs.deleteOne(filter).getDeletedCount());
    }
    assertThat(mine.find().into(new ArrayList<>())).isEqualTo(theirs.find().into(new ArrayList<>()));
  }

  @Test
  void idEqualityOnAnotherNumericTypeFindsTheDocument() {
    MongoCollection<Document> docs = fresh(patched, "numeric");
    // Stored: _id 7 (int32, version 1), 8L (int64, version 1), 9.0 (double, version 2).
    for (Object id : List.of(7, 7L, 7.0, 8, 8L, 8.0)) {
      Document filter = new Document("_id", id).append("version", 1L);
      assertThat(docs.find(filter).first()).as(filter.toJson()).isNotNull();
      assertThat(docs.updateOne(filter, Updates.inc("hits", 1)).getModifiedCount())
          .as(filter.toJson())
          .isOne();
      // The other conditions still decide: a stale version matches nothing.
      Document stale = new Document("_id", id).append("version", 0L);
      assertThat(docs.updateOne(stale, Updates.inc("hits", 1)).getMatchedCount()).isZero();
    }
    for (Object id : List.of(9, 9L, 9.0)) {
      Document filter = new Document("_id", id).append("version", 2L);
      assertThat(docs.find(filter).first()).as(filter.toJson()).isNotNull();
    }
    assertThat(docs.find(new Document("_id", 7.5).append("version", 1L)).first()).isNull();
    assertThat(docs.find(new Document("_id", "7").append("version", 1L)).first()).isNull();
  }

  @Test
  void aVersionedWriteAmongTenThousandDocumentsExaminesOnlyItsCandidate() {
    MongoCollection<Document> docs = fresh(patched, "big", 10_000);
    SnapshotMemoryCollection collection = collection("big");

    long before = collection.documentsExamined();
    UpdateResult cas =
        docs.updateOne(
            new Document("_id", 5_000).append("version", 0L),
            Updates.combine(Updates.inc("version", 1L), Updates.set("n", 1)));
    assertThat(cas.getModifiedCount()).isOne();
    assertThat(collection.documentsExamined() - before).isEqualTo(1);

    // The stale version: still one candidate examined, nothing matched.
    before = collection.documentsExamined();
    assertThat(
            docs.updateOne(new Document("_id", 5_000).append("version", 0L), Updates.set("n", 2))
                .getMatchedCount())
        .isZero();
    assertThat(collection.documentsExamined() - before).isEqualTo(1);

    List<Bson> oneCandidate =
        List.of(
            new Document("_id", 4_000L).append("_fence", new Document("$lt", 100)),
            new Document("_id", 4_001.0)
                .append("version", 0L)
                .append("n", new Document("$exists", false)),
            new Document("$and", List.of(new Document("version", 0L), new Document("_id", 4_002))),
            new Document("_id", new Document("$eq", 4_003)).append("version", 0L),
            fenced(new Document("$and",
                List.of(new Document("_id", 4_004), new Document("version", 0L))), 7),
            new Document("_id", 123_456).append("version", 0L));
    for (Bson filter : oneCandidate) {
      long candidates = filter.toString().contains("123456") ? 0 : 1;
      before = collection.documentsExamined();
      docs.updateOne(filter, Updates.inc("version", 1L));
      assertThat(collection.documentsExamined() - before).as(filter.toString()).isEqualTo(candidates);
      before = collection.documentsExamined();
      docs.find(filter).first();
      assertThat(collection.documentsExamined() - before).as(filter.toString()).isEqualTo(candidates);
    }

    // The counter does see scans: a filter without an _id equality examines every document.
    before = collection.documentsExamined();
    docs.updateOne(new Document("version", 99L), Updates.inc("version", 1L));
    assertThat(collection.documentsExamined() - before).isEqualTo(10_000);
  }

  /** {@code filter} fenced as the library fences a write: {@code _fence} missing or <= token. */
  private static Document fenced(Document filter, long token) {
    return new Document("$and", List.of(filter, new Document("$or", List.of(
        new Document("_fence", null), new Document("_fence", new Document("$lte", token))))));
  }

  private SnapshotMemoryCollection collection(String name) {
    return (SnapshotMemoryCollection)
        patchedBackend.resolveDatabase("idindex").resolveCollection(name, true);
  }

  private static MongoCollection<Document> fresh(MongoClient client, String name) {
    MongoCollection<Document> docs = client.getDatabase("idindex").getCollection(name);
    docs.drop();
    docs.insertMany(seed());
    return docs;
  }

  private static MongoCollection<Document> fresh(MongoClient client, String name, int count) {
    MongoCollection<Document> docs = client.getDatabase("idindex").getCollection(name);
    docs.drop();
    List<Document> batch = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      batch.add(new Document("_id", i).append("version", 0L));
    }
    docs.insertMany(batch);
    return docs;
  }
}
