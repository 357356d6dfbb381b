package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonDocumentReader;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonInvalidOperationException;
import org.bson.BsonReader;
import org.bson.BsonType;
import org.bson.BsonWriter;
import org.bson.Document;
import org.bson.codecs.BsonTypeClassMap;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.DocumentCodec;
import org.bson.codecs.DocumentCodecProvider;
import org.bson.codecs.EncoderContext;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.codecs.configuration.CodecRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Adversarial review of {@link RoundDocuments}: each caller's document must be its own. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RoundDocumentsReviewTest {
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  /** A common setup: binaries decoded to {@code byte[]} by the driver's own ByteArrayCodec. */
  private static CodecRegistry bytesRegistry(BsonType type, Class<?> as) {
    return CodecRegistries.fromRegistries(
        CodecRegistries.fromProviders(
            new DocumentCodecProvider(new BsonTypeClassMap(Map.of(type, as)))),
        MongoClientSettings.getDefaultCodecRegistry());
  }

  private static Document decoded(Codec<Document> codec, BsonDocument state) {
    return codec.decode(new BsonDocumentReader(state), DecoderContext.builder().build());
  }

  @Test
  void aByteArrayChangedInPlaceIsNeverTheStatesOwnBytes() {
    Codec<Document> codec = bytesRegistry(BsonType.BINARY, byte[].class).get(Document.class);
    RoundDocuments documents = new RoundDocuments(codec);
    BsonDocument state = new BsonDocument("_id", new BsonInt32(1))
        .append("version", new BsonInt64(1))
        .append("blob", new BsonBinary(new byte[] {1, 2, 3}));
    Document other = documents.copyOf(state);
    Document mine = documents.copyOf(state);
    ((byte[]) mine.get("blob"))[0] = 9;

    assertThat(state.getBinary("blob").getData()).containsExactly(1, 2, 3);
    assertThat((byte[]) other.get("blob")).containsExactly(1, 2, 3);
    assertThat((byte[]) documents.copyOf(state).get("blob")).containsExactly(1, 2, 3);
    BsonDocument next = InMemoryUpdate.apply(state, BsonDocument.parse("{$inc: {version: 1}}"));
    assertThat((byte[]) documents.copyOf(next).get("blob")).containsExactly(1, 2, 3);
  }

  @Test
  void aBsonBinaryInADecodedBsonDocumentIsNeverTheStatesOwn() {
    Codec<Document> codec = bytesRegistry(BsonType.DOCUMENT, BsonDocument.class)
        .get(Document.class);
    RoundDocuments documents = new RoundDocuments(codec);
    BsonDocument state = new BsonDocument("_id", new BsonInt32(1))
        .append("meta", new BsonDocument("blob", new BsonBinary(new byte[] {1, 2, 3})));
    Document mine = documents.copyOf(state);
    mine.get("meta", BsonDocument.class).getBinary("blob").getData()[0] = 9;

    assertThat(state.getDocument("meta").getBinary("blob").getData()).containsExactly(1, 2, 3);
    assertThat(documents.copyOf(state).get("meta", BsonDocument.class).getBinary("blob")
        .getData()).containsExactly(1, 2, 3);
  }

  /** A store codec that is not the driver's DocumentCodec: a subclass, checked on decode. */
  static final class Account extends Document {
    private static final long serialVersionUID = 1L;

    Account(Map<String, Object> fields) {
      super(fields);
    }
  }

  static final class AccountCodec implements Codec<Document> {
    private final DocumentCodec inner = new DocumentCodec();

    @Override
    public Document decode(BsonReader reader, DecoderContext context) {
      Document d = inner.decode(reader, context);
      if (!d.containsKey("_id")) {
        throw new BsonInvalidOperationException("an account without _id");
      }
      return new Account(d);
    }

    @Override
    public void encode(BsonWriter writer, Document value, EncoderContext context) {
      inner.encode(writer, value, context);
    }

    @Override
    public Class<Document> getEncoderClass() {
      return Document.class;
    }
  }

  @Test
  void aStoreCodecOtherThanDocumentCodecDecodesAsItWouldForALoneCaller() {
    Codec<Document> codec = new AccountCodec();
    RoundDocuments documents = new RoundDocuments(codec);
    BsonDocument state = new BsonDocument("_id", new BsonInt32(1))
        .append("version", new BsonInt64(1))
        .append("n", new BsonInt32(5));
    Document expected = decoded(codec, state);

    Document copy = documents.copyOf(state);

    assertThat(copy).isExactlyInstanceOf(Account.class).isEqualTo(expected);
  }

  @Test
  void aCallerThatWritesNothingCannotChangeWhatTheNextCallerWrites() throws Exception {
    MongoCollection<Document> docs = TestMongo.freshDatabase("RoundDocsReview")
        .getCollection("docs").withCodecRegistry(bytesRegistry(BsonType.BINARY, byte[].class));
    VersionedInsert.insertOne(docs, VersionPolicy.defaults(),
        new Document("_id", "b").append("n", 0L).append("blob", new byte[] {1, 2, 3}));
    VersionedUpdater updater = VersionedUpdater.builder(docs).build();

    HeldBatch held = new HeldBatch(pool, updater, "b",
        current -> Mutation.update(Updates.inc("n", 1L)));
    // Scribbles on what it was told is its own copy, then decides to write nothing.
    Future<UpdateOutcome> scribbler = held.queue(current -> {
      ((byte[]) current.get("blob"))[0] = 9;
      return Mutation.none();
    });
    AtomicReference<byte[]> seen = new AtomicReference<>();
    Future<UpdateOutcome> replacer = held.queue(current -> {
      seen.set(((byte[]) current.get("blob")).clone());
      current.put("n", current.getLong("n") + 10);
      return Mutation.replace(current);
    });
    held.release();
    scribbler.get(60, TimeUnit.SECONDS);
    replacer.get(60, TimeUnit.SECONDS);

    assertThat(seen.get()).containsExactly(1, 2, 3);
    Document stored = docs.find(eq("_id", "b")).first();
    assertThat(stored.getLong("n")).isEqualTo(11L);
    assertThat((byte[]) stored.get("blob")).containsExactly(1, 2, 3);
  }
}
