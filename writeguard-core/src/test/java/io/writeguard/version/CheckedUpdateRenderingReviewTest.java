package io.writeguard.version;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.InsertOneModel;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.Updates;
import java.util.List;
import java.util.UUID;
import org.bson.UuidRepresentation;
import org.junit.jupiter.api.AfterAll;
import io.writeguard.atomic.AtomicUpdates;
import io.writeguard.lock.Fencing;
import io.writeguard.testing.TestMongo;
import org.bson.BsonDocument;
import org.bson.BsonReader;
import org.bson.BsonWriter;
import org.bson.Document;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.EncoderContext;
import org.bson.codecs.configuration.CodecRegistries;
import org.junit.jupiter.api.Test;

/**
 * Review of 297cc71 / fc550e8 (CheckedUpdate): an update the driver's default codecs render is
 * checked on that rendering when it is built, and then sent as the collection's codecs render
 * it. A value the defaults encode one way and the application's codec another (a record: the
 * defaults encode any record by its components) can put the version or the fence under the
 * collection's codecs only. Such an update must still be refused as the check refuses it
 * (VersionFieldException, IllegalArgumentException), with nothing written.
 */
public class CheckedUpdateRenderingReviewTest {
  private static final AtomicUpdates.Versioned ATOMIC =
      AtomicUpdates.versioned(VersionPolicy.defaults());

  /** The defaults encode it as {@code {revision: n}}. */
  public record Release(long revision) {}

  /** The application's codec: stores a release under a field of its own name choosing. */
  static final class ReleaseCodec implements Codec<Release> {
    private final String field;

    ReleaseCodec(String field) {
      this.field = field;
    }

    @Override
    public void encode(BsonWriter writer, Release value, EncoderContext context) {
      writer.writeStartDocument();
      writer.writeInt64(field, value.revision());
      writer.writeEndDocument();
    }

    @Override
    public Release decode(BsonReader reader, DecoderContext context) {
      reader.readStartDocument();
      long n = reader.readInt64(field);
      reader.readEndDocument();
      return new Release(n);
    }

    @Override
    public Class<Release> getEncoderClass() {
      return Release.class;
    }
  }

  private static MongoCollection<Document> collection(String field) {
    MongoCollection<Document> docs =
        TestMongo.freshDatabase("CheckedUpdateRendering").getCollection("docs");
    docs = docs.withCodecRegistry(CodecRegistries.fromRegistries(
        CodecRegistries.fromCodecs(new ReleaseCodec(field)), docs.getCodecRegistry()));
    docs.insertOne(new Document("_id", 1).append("version", 3L).append("_fence", 1L));
    return docs;
  }

  private static BsonDocument stored(MongoCollection<Document> docs) {
    return docs.withDocumentClass(BsonDocument.class).find(eq("_id", 1)).first();
  }

  @Test
  void anUpdateWritingTheVersionOnlyWithTheCollectionsCodecsIsRefusedAndNothingIsWritten() {
    MongoCollection<Document> docs = collection("version");
    BsonDocument before = stored(docs);

    assertThatThrownBy(() -> docs.updateOne(eq("_id", 1),
        ATOMIC.raising(new Document("$set", new Release(9)))))
        .isInstanceOf(VersionFieldException.class);

    assertThat(stored(docs)).isEqualTo(before);
  }

  @Test
  void anUpdateWritingTheFenceOnlyWithTheCollectionsCodecsIsRefusedAndNothingIsWritten() {
    MongoCollection<Document> docs = collection("_fence");
    BsonDocument before = stored(docs);

    assertThatThrownBy(() -> docs.updateOne(eq("_id", 1),
        Fencing.fencedUpdate(new Document("$min", new Release(0)), 5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fence");

    assertThat(stored(docs)).isEqualTo(before);
  }

  private static final MongoClient UUID_CLIENT =
      TestMongo.newClient(b -> b.uuidRepresentation(UuidRepresentation.STANDARD));

  @AfterAll
  static void closeClient() {
    UUID_CLIENT.close();
  }

  /**
   * "The write throws before sending anything" (VersionPolicy.raising, Fencing.fencedUpdate)
   * holds in an ordered bulk write too, where an insert before the update is a command of its
   * own: the driver renders every request before it sends the first. Held in review; kept as a
   * guard should the driver ever render lazily.
   */
  @Test
  void aBulkWriteWithARefusedUpdateSendsNothing() {
    MongoCollection<Document> docs = UUID_CLIENT.getDatabase(
        TestMongo.freshDatabase("CheckedUpdateBulk").getName()).getCollection("docs");
    docs.insertOne(new Document("_id", 1).append("version", 3L));
    UUID ref = UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e");

    assertThatThrownBy(() -> docs.bulkWrite(List.of(
        new InsertOneModel<>(new Document("_id", 2)),
        new UpdateOneModel<>(eq("_id", 1), ATOMIC.raising(
            Updates.combine(Updates.set("ref", ref), Updates.set("version", 9L)))))))
        .isInstanceOf(VersionFieldException.class);

    assertThat(docs.countDocuments(eq("_id", 2))).as("the insert before it").isZero();
  }
}
