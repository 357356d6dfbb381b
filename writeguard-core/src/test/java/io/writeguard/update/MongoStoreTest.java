package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.internal.Deadline;
import io.writeguard.testing.StallingProxy;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.DocumentCodecProvider;
import org.bson.codecs.ValueCodecProvider;
import org.bson.codecs.configuration.CodecConfigurationException;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.types.Binary;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * The store reads what the driver's raw reads give, and every operation, on a bounded view
 * made for it or kept from an earlier one, carries the thread's deadline.
 */
class MongoStoreTest {

  /**
   * A registry built without the driver's defaults (no raw-document codec): the library reads
   * raw through its own codec placed before the collection's, so an update works there too.
   */
  @Test
  void anUpdateWorksOnACollectionWhoseRegistryHasNoRawCodec() {
    MongoCollection<Document> docs = TestMongo.freshDatabase("MongoStoreNoRaw")
        .getCollection("d").withCodecRegistry(CodecRegistries.fromProviders(
            new ValueCodecProvider(), new DocumentCodecProvider()));
    docs.insertOne(new Document("_id", 1).append("n", 1L).append("version", 0L));
    assertThatThrownBy(() -> docs.withDocumentClass(RawBsonDocument.class).find().first())
        .as("the collection alone cannot read raw")
        .isInstanceOf(CodecConfigurationException.class);

    UpdateOutcome out = VersionedUpdater.builder(docs).build()
        .update(1, d -> Mutation.update(Updates.set("n", d.getLong("n") + 1)));

    assertThat(out.document().orElseThrow().getLong("n")).isEqualTo(2L);
    assertThat(docs.find(eq("_id", 1)).first().getLong("version")).isEqualTo(1L);
  }

  @Test
  void readsAndProbesAreWhatTheDriversRawReadsGive() {
    MongoCollection<Document> docs = TestMongo.freshDatabase("MongoStore").getCollection("d");
    List<Document> stored = List.of(
        new Document("_id", 1).append("version", 3L),
        new Document("_id", "s").append("version", 0L).append("bits", new Binary(new byte[5000]))
            .append("nested", new Document("a", List.of(1, "two", new Document("x", null)))),
        new Document("_id", new ObjectId()).append("n", 1));
    docs.insertMany(stored);
    MongoStore store = new MongoStore(docs);
    MongoCollection<RawBsonDocument> driversRaw = docs.withDocumentClass(RawBsonDocument.class);
    for (Document d : stored) {
      Object id = d.get("_id");
      RawBsonDocument read = store.read(id);
      assertThat(read).isEqualTo(driversRaw.find(eq("_id", id)).first());
      assertThat(read.decode(docs.getCodecRegistry().get(Document.class))).isEqualTo(d);
      assertThat(store.read(id)).as("each read its own copy").isNotSameAs(read).isEqualTo(read);
      BsonDocument probe = store.probe(id, "version");
      assertThat(probe.keySet()).containsExactlyElementsOf(
          d.containsKey("version") ? List.of("_id", "version") : List.of("_id"));
    }
    assertThat(store.read("missing")).isNull();
    assertThat(store.probe("missing", "version")).isNull();
  }

  @Test
  void itsWritesAndReadsAreBoundedByTheThreadsDeadline() {
    try (StallingProxy proxy = StallingProxy.forTestMongo(); MongoClient client = proxy.mongoClient()) {
      MongoCollection<Document> docs = client.getDatabase(
          TestMongo.freshDatabase("MongoStoreStall").getName()).getCollection("d");
      docs.insertOne(new Document("_id", 1).append("version", 0L));
      MongoStore store = new MongoStore(docs);
      BsonDocument inc = new BsonDocument("$inc", new BsonDocument("version", new BsonInt64(1)));
      Deadline.within(Deadline.after(Duration.ofSeconds(20)), () -> {
        // answered, on views the next calls may be given again
        assertThat(store.update(eq("_id", 1), inc, false).matched()).isTrue();
        assertThat(store.read(1)).isNotNull();
      });
      proxy.stall();
      // The client's own timeouts are 60 s: only the deadline ends these.
      assertThatThrownBy(() -> Deadline.within(Deadline.after(Duration.ofSeconds(1)),
          () -> store.update(eq("_id", 1), inc, false)))
          .isInstanceOf(MongoOperationTimeoutException.class);
      assertThatThrownBy(() -> Deadline.within(Deadline.after(Duration.ofSeconds(1)),
          () -> store.read(1)))
          .isInstanceOf(MongoOperationTimeoutException.class);
    }
  }
}
