package io.writeguard.lock;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.set;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionFieldException;
import io.writeguard.version.VersionPolicy;
import java.time.Duration;
import java.util.UUID;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.UuidRepresentation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A fenced update holding a value the collection's codecs encode and the driver's defaults do
 * not (a UUID under the client's configured representation) is written, fenced, and raises the
 * version; one that writes the fence or the version beside such a value is still refused with
 * nothing written.
 */
class FencedUpdateCollectionCodecsTest {
  private static final UUID REF = UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e");
  private static final MongoClient CLIENT =
      TestMongo.newClient(b -> b.uuidRepresentation(UuidRepresentation.STANDARD));

  private final MongoDatabase db =
      CLIENT.getDatabase(TestMongo.freshDatabase("FencedCodecs").getName());
  private final MongoCollection<Document> data = db.getCollection("docs");

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  private BsonDocument stored() {
    return data.withDocumentClass(BsonDocument.class).find(eq("_id", "doc")).first();
  }

  @Test
  void aUuidTheCollectionEncodesIsWrittenFencedAndRaisesTheVersion() {
    data.insertOne(new Document("_id", "doc").append("version", 1L));
    FencedWriter writer = FencedWriter.builder(data).versionPolicy(VersionPolicy.defaults())
        .build();
    try (MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "locks").noCleanup()
        .build(); LockHandle lock = locks.acquire("doc", Duration.ofSeconds(5))) {
      assertThat(writer.updateOne(lock, "doc", set("ref", REF)))
          .isEqualTo(FencedWriter.Outcome.APPLIED);

      BsonDocument after = stored();
      assertThat(after.get("ref")).isEqualTo(new BsonBinary(REF, UuidRepresentation.STANDARD));
      assertThat(after.getInt64(Fencing.FIELD).getValue()).isEqualTo(lock.token());
      assertThat(after.getInt64("version").getValue()).isEqualTo(2L);
    }
  }

  @Test
  void theRawHelperWorksOnTheCollectionToo() {
    data.insertOne(new Document("_id", "doc"));

    data.updateOne(Fencing.fencedFilter(eq("_id", "doc"), 7),
        Fencing.fencedUpdate(set("ref", REF), 7));

    assertThat(stored().getInt64(Fencing.FIELD).getValue()).isEqualTo(7L);
    assertThat(stored().get("ref")).isEqualTo(new BsonBinary(REF, UuidRepresentation.STANDARD));
  }

  @Test
  void writingTheFenceOrTheVersionBesideSuchAValueIsRefusedWithNothingWritten() {
    data.insertOne(new Document("_id", "doc").append("version", 1L));
    BsonDocument before = stored();
    FencedWriter writer = FencedWriter.builder(data).versionPolicy(VersionPolicy.defaults())
        .build();
    try (MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "locks").noCleanup()
        .build(); LockHandle lock = locks.acquire("doc", Duration.ofSeconds(5))) {
      assertThatThrownBy(() -> writer.updateOne(lock, "doc",
          com.mongodb.client.model.Updates.combine(set("ref", REF), set(Fencing.FIELD, 99L))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(Fencing.FIELD);
      assertThatThrownBy(() -> writer.updateOne(lock, "doc",
          com.mongodb.client.model.Updates.combine(set("ref", REF), set("version", 99L))))
          .isInstanceOf(VersionFieldException.class);
    }
    assertThat(stored()).isEqualTo(before);
  }
}
