package io.writeguard.version;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.atomic.AtomicUpdates;
import io.writeguard.path.FieldPath;
import io.writeguard.testing.TestMongo;
import java.util.UUID;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonReader;
import org.bson.BsonWriter;
import org.bson.Document;
import org.bson.UuidRepresentation;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.EncoderContext;
import org.bson.codecs.configuration.CodecRegistries;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * An update that raises the version holds values the collection's codecs encode and the
 * driver's defaults do not: a UUID under the representation the application configured (the
 * defaults refuse to guess one), a class with a codec of the application's own. Such an update
 * must work on that collection, and still be refused, with nothing written, when it writes the
 * version field itself.
 */
class RaisingWithCollectionCodecsTest {
  private static final UUID REF = UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e");
  private static final AtomicUpdates.Versioned ATOMIC =
      AtomicUpdates.versioned(VersionPolicy.defaults());

  /** A value only the application's own codec knows. */
  static final class Money {
    final long cents;

    Money(long cents) {
      this.cents = cents;
    }
  }

  static final class MoneyCodec implements Codec<Money> {
    @Override
    public void encode(BsonWriter writer, Money value, EncoderContext context) {
      writer.writeString(value.cents + " cents");
    }

    @Override
    public Money decode(BsonReader reader, DecoderContext context) {
      return new Money(Long.parseLong(reader.readString().replace(" cents", "")));
    }

    @Override
    public Class<Money> getEncoderClass() {
      return Money.class;
    }
  }

  /** A client that stores UUIDs as the standard subtype 4, as an application configures it. */
  private static final MongoClient CLIENT =
      TestMongo.newClient(b -> b.uuidRepresentation(UuidRepresentation.STANDARD));

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  private static MongoCollection<Document> collection() {
    MongoCollection<Document> docs = CLIENT.getDatabase(
        TestMongo.freshDatabase("RaisingCodecs").getName()).getCollection("docs");
    docs = docs.withCodecRegistry(CodecRegistries.fromRegistries(
        CodecRegistries.fromCodecs(new MoneyCodec()), docs.getCodecRegistry()));
    docs.insertOne(new Document("_id", 1).append("version", 3L));
    return docs;
  }

  private static BsonDocument stored(MongoCollection<Document> docs) {
    return docs.withDocumentClass(BsonDocument.class).find(eq("_id", 1)).first();
  }

  @Test
  void aUuidTheCollectionEncodesIsWrittenAndTheVersionRaised() {
    MongoCollection<Document> docs = collection();

    docs.updateOne(eq("_id", 1), ATOMIC.set(FieldPath.of("ref"), REF));

    BsonDocument after = stored(docs);
    assertThat(after.get("ref")).isEqualTo(new BsonBinary(REF, UuidRepresentation.STANDARD));
    assertThat(after.getInt64("version").getValue()).isEqualTo(4L);
  }

  @Test
  void aValueOfTheApplicationsOwnCodecIsWrittenAndTheVersionRaised() {
    MongoCollection<Document> docs = collection();

    docs.updateOne(eq("_id", 1), ATOMIC.push(FieldPath.of("paid"), new Money(250)));

    BsonDocument after = stored(docs);
    assertThat(after.getArray("paid").get(0).asString().getValue()).isEqualTo("250 cents");
    assertThat(after.getInt64("version").getValue()).isEqualTo(4L);
  }

  @Test
  void anUpdateWritingTheVersionBesideSuchAValueIsRefusedAndNothingIsWritten() {
    MongoCollection<Document> docs = collection();
    BsonDocument before = stored(docs);

    assertThatThrownBy(() -> docs.updateOne(eq("_id", 1), ATOMIC.raising(
        Updates.combine(Updates.set("ref", REF), Updates.set("version", 9L)))))
        .isInstanceOf(VersionFieldException.class)
        .hasMessageContaining("version");

    assertThat(stored(docs)).isEqualTo(before);
  }

  @Test
  void anUpdateTheDefaultsRenderIsStillCheckedWhenBuilt() {
    assertThatThrownBy(() -> ATOMIC.raising(Updates.set("version", 9L)))
        .isInstanceOf(VersionFieldException.class);
    assertThatThrownBy(() -> ATOMIC.raising(new BsonDocument("plain", new BsonBinary(new byte[1]))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("update operators");
  }
}
