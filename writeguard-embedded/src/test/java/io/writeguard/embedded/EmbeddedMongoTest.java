package io.writeguard.embedded;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gte;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Accumulators;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.Updates;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The snapshot patch changes how {@code findAndModify} writes its update back (it now updates a
 * copy and {@code handleUpdate} stores it); these tests pin down that every read and write path
 * still behaves as before.
 */
class EmbeddedMongoTest {
  private static EmbeddedMongo mongo;
  private static MongoClient client;
  private MongoCollection<Document> docs;

  @BeforeAll
  static void startServer() {
    mongo = EmbeddedMongo.start();
    client = MongoClients.create(mongo.uri());
  }

  @AfterAll
  static void stopServer() {
    client.close();
    mongo.close();
  }

  @BeforeEach
  void freshCollection(TestInfo test) {
    String name = test.getTestMethod().orElseThrow().getName();
    docs = client.getDatabase("embedded_test").getCollection(name);
  }

  @Test
  void uriNamesLoopbackAndThePort() {
    assertThat(mongo.uri()).isEqualTo("mongodb://127.0.0.1:" + mongo.port());
    assertThat(mongo.port()).isPositive();
  }

  @Test
  void findOneAndUpdateAfterReturnsAndStoresTheNewVersion() {
    docs.insertOne(new Document("_id", 1).append("version", 1).append("n", 10));

    Document after =
        docs.findOneAndUpdate(
            and(eq("_id", 1), eq("version", 1)),
            Updates.combine(Updates.inc("version", 1), Updates.inc("n", 5)),
            new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER));

    assertThat(after).isEqualTo(new Document("_id", 1).append("version", 2).append("n", 15));
    assertThat(docs.find(eq("_id", 1)).first()).isEqualTo(after);
    // The stale version no longer matches.
    assertThat(docs.findOneAndUpdate(and(eq("_id", 1), eq("version", 1)), Updates.inc("n", 1)))
        .isNull();
    assertThat(docs.find(eq("_id", 1)).first().getInteger("n")).isEqualTo(15);
  }

  @Test
  void findOneAndUpdateBeforeReturnsTheOldVersionAndStoresTheNew() {
    docs.insertOne(new Document("_id", 1).append("tags", List.of("a")).append("gone", true));

    Document before =
        docs.findOneAndUpdate(
            eq("_id", 1),
            Updates.combine(Updates.push("tags", "b"), Updates.unset("gone")),
            new FindOneAndUpdateOptions().returnDocument(ReturnDocument.BEFORE));

    assertThat(before)
        .isEqualTo(new Document("_id", 1).append("tags", List.of("a")).append("gone", true));
    assertThat(docs.find(eq("_id", 1)).first())
        .isEqualTo(new Document("_id", 1).append("tags", List.of("a", "b")));
  }

  @Test
  void repeatedFindOneAndUpdatesOnNestedPathsAllStick() {
    docs.insertOne(new Document("_id", 1).append("infos", new Document("k", new Document())));
    for (int i = 0; i < 20; i++) {
      docs.findOneAndUpdate(
          eq("_id", 1),
          Updates.combine(Updates.inc("infos.k.n", 1), Updates.addToSet("infos.k.s", i % 5)));
    }
    Document infos = docs.find(eq("_id", 1)).first().get("infos", Document.class);
    assertThat(infos.get("k", Document.class).getInteger("n")).isEqualTo(20);
    assertThat(infos.get("k", Document.class).getList("s", Integer.class))
        .containsExactly(0, 1, 2, 3, 4);
  }

  @Test
  void findOneAndUpdateUpsertsAndReturnsTheInsertedDocument() {
    Document upserted =
        docs.findOneAndUpdate(
            eq("_id", "new"),
            Updates.inc("n", 1),
            new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.AFTER));

    assertThat(upserted).isEqualTo(new Document("_id", "new").append("n", 1));
    docs.findOneAndUpdate(eq("_id", "new"), Updates.inc("n", 1));
    assertThat(docs.find(eq("_id", "new")).first().getInteger("n")).isEqualTo(2);
  }

  @Test
  void findOneAndUpdateHonoursSortAndProjection() {
    docs.insertMany(
        List.of(
            new Document("_id", 1).append("p", 3).append("x", "a"),
            new Document("_id", 2).append("p", 9).append("x", "b")));

    Document top =
        docs.findOneAndUpdate(
            gte("p", 0),
            Updates.set("taken", true),
            new FindOneAndUpdateOptions()
                .sort(Sorts.descending("p"))
                .projection(new Document("x", 1))
                .returnDocument(ReturnDocument.AFTER));

    assertThat(top).isEqualTo(new Document("_id", 2).append("x", "b"));
    assertThat(docs.countDocuments(eq("taken", true))).isEqualTo(1);
    assertThat(docs.find(eq("_id", 2)).first().getBoolean("taken")).isTrue();
  }

  @Test
  void findOneAndReplaceAndFindOneAndDeleteWork() {
    docs.insertOne(new Document("_id", 1).append("a", 1));

    assertThat(docs.findOneAndReplace(eq("_id", 1), new Document("b", 2)))
        .isEqualTo(new Document("_id", 1).append("a", 1));
    assertThat(docs.find(eq("_id", 1)).first()).isEqualTo(new Document("_id", 1).append("b", 2));
    assertThat(docs.findOneAndDelete(eq("_id", 1)))
        .isEqualTo(new Document("_id", 1).append("b", 2));
    assertThat(docs.countDocuments()).isZero();
  }

  @Test
  void uniqueIndexStillRejectsDuplicatesThroughFindOneAndUpdate() {
    docs.createIndex(Indexes.ascending("email"), new IndexOptions().unique(true));
    docs.insertMany(
        List.of(
            new Document("_id", 1).append("email", "a@x"),
            new Document("_id", 2).append("email", "b@x")));

    assertThatThrownBy(
            () -> docs.findOneAndUpdate(eq("_id", 2), Updates.set("email", "a@x")))
        .isInstanceOfSatisfying(
            MongoCommandException.class,
            e ->
                assertThat(ErrorCategory.fromErrorCode(e.getErrorCode()))
                    .isEqualTo(ErrorCategory.DUPLICATE_KEY));
    assertThatThrownBy(() -> docs.insertOne(new Document("_id", 3).append("email", "b@x")))
        .isInstanceOfSatisfying(
            MongoWriteException.class,
            e -> assertThat(e.getError().getCategory()).isEqualTo(ErrorCategory.DUPLICATE_KEY));

    // The failed update left the stored document alone, and the index still finds it.
    assertThat(docs.find(eq("_id", 2)).first().getString("email")).isEqualTo("b@x");
    docs.findOneAndUpdate(eq("_id", 2), Updates.set("email", "c@x"));
    assertThat(docs.find(eq("email", "c@x")).first().getInteger("_id")).isEqualTo(2);
    assertThat(docs.find(eq("email", "b@x")).first()).isNull();
  }

  @Test
  void getMoreReturnsEveryDocumentOnce() {
    List<Document> inserted = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      inserted.add(new Document("_id", i).append("n", i));
    }
    docs.insertMany(inserted);

    List<Document> read = new ArrayList<>();
    docs.find().sort(Sorts.ascending("_id")).batchSize(4).into(read);

    assertThat(read).isEqualTo(inserted);
  }

  @Test
  void updatesDeletesAggregationAndDistinctWork() {
    docs.insertMany(
        List.of(
            new Document("_id", 1).append("g", "x").append("n", 1),
            new Document("_id", 2).append("g", "x").append("n", 2),
            new Document("_id", 3).append("g", "y").append("n", 3)));

    assertThat(docs.updateMany(eq("g", "x"), Updates.inc("n", 10)).getModifiedCount()).isEqualTo(2);
    assertThat(docs.deleteOne(eq("_id", 3)).getDeletedCount()).isEqualTo(1);
    Document sum =
        docs.aggregate(List.of(Aggregates.group("$g", Accumulators.sum("total", "$n")))).first();
    assertThat(sum).isEqualTo(new Document("_id", "x").append("total", 23));
    assertThat(docs.distinct("g", String.class).into(new ArrayList<>())).containsExactly("x");
  }

  @Test
  void closeIsIdempotentAndReleasesThePort() {
    EmbeddedMongo other = EmbeddedMongo.start();
    int port = other.port();
    other.close();
    other.close();
    try (EmbeddedMongo again = EmbeddedMongo.start(port)) {
      assertThat(again.port()).isEqualTo(port);
    }
  }

  @Test
  void aPortInUseIsReportedWithThePortAndLeavesNoThreadsBehind() {
    long threadsBefore = serverThreads();
    assertThatThrownBy(() -> EmbeddedMongo.start(mongo.port()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "cannot start embedded MongoDB on 127.0.0.1:"
                + mongo.port()
                + ": BindException (Address already in use)");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(serverThreads()).isLessThanOrEqualTo(threadsBefore));
  }

  @Test
  void rejectsAPortOutOfRange() {
    assertThatThrownBy(() -> EmbeddedMongo.start(65536))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("port must be between 0 and 65535, was 65536");
    assertThatThrownBy(() -> EmbeddedMongo.start(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("port must be between 0 and 65535, was -1");
  }

  private static long serverThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("mongo-server-"))
        .count();
  }
}
