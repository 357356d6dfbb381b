package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoClientSettings;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDocumentReader;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonReader;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonWriter;
import org.bson.Document;
import org.bson.UuidRepresentation;
import org.bson.codecs.BsonTypeClassMap;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.DocumentCodecProvider;
import org.bson.codecs.EncoderContext;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.types.Binary;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * Each caller of a round gets a private document equal to what the store's codec decodes, while
 * what no caller changes is decoded once per round, not once per caller.
 */
class RoundDocumentsTest {
  private static final CodecRegistry REGISTRY = CodecRegistries.withUuidRepresentation(
      MongoClientSettings.getDefaultCodecRegistry(), UuidRepresentation.STANDARD);
  private static final Codec<Document> CODEC = REGISTRY.get(Document.class);

  private static BsonDocument rich() {
    return new BsonDocument("_id", new BsonInt32(7))
        .append("version", new BsonInt64(3))
        .append("n", new BsonInt32(1))
        .append("pad", new BsonBinary(new byte[64 * 1024]))
        .append("uuid", new BsonBinary(UUID.randomUUID(), UuidRepresentation.STANDARD))
        .append("ref", new org.bson.BsonObjectId(new ObjectId()))
        .append("money", new BsonDecimal128(Decimal128.parse("1.10")))
        .append("re", new BsonRegularExpression("^a", "i"))
        .append("when", new BsonDateTime(1_700_000_000_000L))
        .append("items", new BsonArray(List.of(new BsonString("a"),
            new BsonDocument("x", new BsonInt32(1)), new BsonDateTime(5))))
        .append("owner", new BsonDocument("name", new BsonString("ann"))
            .append("tags", new BsonArray(List.of(new BsonString("t")))));
  }

  private static Document decoded(BsonDocument state) {
    return CODEC.decode(new BsonDocumentReader(state), DecoderContext.builder().build());
  }

  private static BsonDocument json(String update) {
    return BsonDocument.parse(update);
  }

  @Test
  void everyCopyEqualsWhatTheCodecDecodesAlongTheRoundsStates() {
    RoundDocuments documents = new RoundDocuments(CODEC);
    BsonDocument state = rich();
    List<BsonDocument> updates = List.of(
        json("{$inc: {n: 1}}"),
        json("{$set: {'owner.name': 'bob'}}"),
        json("{$push: {items: 'b'}, $set: {version: {$numberLong: '4'}}}"),
        json("{$unset: {re: ''}}"),
        json("{$set: {fresh: {a: [1, 2]}}}"),
        json("{$inc: {n: 1}}"));
    List<BsonDocument> states = new ArrayList<>(List.of(state));
    for (BsonDocument update : updates) {
      state = InMemoryUpdate.apply(state, update);
      states.add(state);
    }
    for (BsonDocument s : states) {
      assertThat(documents.copyOf(s)).isEqualTo(decoded(s));
      assertThat(new ArrayList<>(documents.copyOf(s).keySet()))
          .isEqualTo(new ArrayList<>(decoded(s).keySet()));
    }
    // Earlier states asked for again (outcomes are decoded after the round's last state).
    for (BsonDocument s : states) {
      assertThat(documents.copyOf(s)).isEqualTo(decoded(s));
    }
  }

  @Test
  void aCallerChangingItsCopyChangesNobodyElses() {
    RoundDocuments documents = new RoundDocuments(CODEC);
    BsonDocument state = rich();
    Document mine = documents.copyOf(state);
    mine.get("owner", Document.class).put("name", "mallory");
    mine.get("owner", Document.class).getList("tags", String.class).add("x");
    mine.getList("items", Object.class).add("y");
    ((Document) mine.getList("items", Object.class).get(1)).put("x", 99);
    mine.getDate("when").setTime(0);
    ((Date) mine.getList("items", Object.class).get(2)).setTime(42);
    mine.put("n", 1000);

    assertThat(documents.copyOf(state)).isEqualTo(decoded(state));
    BsonDocument next = InMemoryUpdate.apply(state, json("{$inc: {n: 1}}"));
    assertThat(documents.copyOf(next)).isEqualTo(decoded(next));
  }

  @Test
  void whatNoCallerChangesIsDecodedOnceForTheRound() {
    RoundDocuments documents = new RoundDocuments(CODEC);
    BsonDocument state = rich();
    Document first = documents.copyOf(state);
    BsonDocument next = InMemoryUpdate.apply(state, json("{$inc: {n: 1}}"));
    Document second = documents.copyOf(next);
    Document third = documents.copyOf(next);
    // The 64 KB pad is one Binary for every caller, not a copy of its bytes each.
    assertThat(second.get("pad")).isSameAs(first.get("pad")).isSameAs(third.get("pad"));
    assertThat(second.get("ref")).isSameAs(third.get("ref")).isInstanceOf(ObjectId.class);
    assertThat(second.get("n")).isEqualTo(2);
    // Containers are each caller's own.
    assertThat(second.get("owner")).isNotSameAs(third.get("owner")).isEqualTo(third.get("owner"));
    assertThat(second.get("when")).isNotSameAs(third.get("when"));
  }

  /** A mutable type a user's codec decodes binaries to: must never be shared by two callers. */
  static final class Bytes {
    final byte[] data;

    Bytes(byte[] data) {
      this.data = data;
    }
  }

  static final class BytesCodec implements Codec<Bytes> {
    @Override
    public Bytes decode(BsonReader reader, DecoderContext context) {
      return new Bytes(reader.readBinaryData().getData().clone()); // BsonBinary hands out its own array
    }

    @Override
    public void encode(BsonWriter writer, Bytes value, EncoderContext context) {
      writer.writeBinaryData(new BsonBinary(value.data));
    }

    @Override
    public Class<Bytes> getEncoderClass() {
      return Bytes.class;
    }
  }

  @Test
  void aCodecsOwnTypesAreDecodedAfreshForEachCaller() {
    BsonTypeClassMap classes = new BsonTypeClassMap(Map.of(BsonType.BINARY, Bytes.class));
    CodecRegistry registry = CodecRegistries.fromRegistries(
        CodecRegistries.fromCodecs(new BytesCodec()),
        CodecRegistries.fromProviders(new DocumentCodecProvider(classes)),
        MongoClientSettings.getDefaultCodecRegistry());
    RoundDocuments documents = new RoundDocuments(registry.get(Document.class));
    BsonDocument state = new BsonDocument("_id", new BsonInt32(1))
        .append("raw", new BsonBinary(new byte[] {1, 2, 3}))
        .append("nested", new BsonDocument("raw", new BsonBinary(new byte[] {4})));
    Document a = documents.copyOf(state);
    Document b = documents.copyOf(state);
    assertThat(a.get("raw")).isInstanceOf(Bytes.class).isNotSameAs(b.get("raw"));
    ((Bytes) a.get("raw")).data[0] = 9;
    assertThat(((Bytes) b.get("raw")).data[0]).isEqualTo((byte) 1);
    Bytes nestedA = (Bytes) a.get("nested", Document.class).get("raw");
    Bytes nestedB = (Bytes) b.get("nested", Document.class).get("raw");
    assertThat(nestedA).isNotSameAs(nestedB);
    assertThat(documents.copyOf(state).get("_id")).isEqualTo(1);
    assertThat(a.get("_id")).isInstanceOf(Integer.class);
  }
}
