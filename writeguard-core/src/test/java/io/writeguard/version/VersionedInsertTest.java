package io.writeguard.version;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import io.writeguard.testing.TestMongo;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.Document;
import org.junit.jupiter.api.Test;

class VersionedInsertTest {
  private final VersionPolicy policy = VersionPolicy.defaults();

  @Test
  void stampsAnInt64ZeroOnACopy() {
    Document mine = new Document("name", "a");
    Document stamped = VersionedInsert.stamp(policy, mine);
    assertThat(stamped.get("version")).isEqualTo(0L).isInstanceOf(Long.class);
    assertThat(mine).doesNotContainKey("version");
    assertThat(VersionedInsert.stamp(policy, new Document("version", 0)).get("version"))
        .isInstanceOf(Long.class);
  }

  @Test
  void refusesADocumentThatAlreadyCarriesAnotherVersion() {
    assertThatThrownBy(() -> VersionedInsert.stamp(policy, new Document("version", 3L)))
        .isInstanceOf(VersionFieldException.class)
        .hasMessageContaining("insert touches 'version'")
        .hasMessageContaining("was Long 3");
    assertThatThrownBy(() -> VersionedInsert.stamp(policy, new Document("version", "0")))
        .hasMessageContaining("was String 0");
    assertThatThrownBy(() -> VersionedInsert.stamp(policy, new Document("version", null)))
        .hasMessageContaining("was null");
  }

  @Test
  void insertsWithAStoredInt64() {
    MongoCollection<Document> docs = TestMongo.freshDatabase("VersionedInsert").getCollection("d");
    Document written = VersionedInsert.insertOne(docs, policy, new Document("name", "a"));
    assertThat(written.get("_id")).isNotNull();
    BsonDocument stored = docs.withDocumentClass(BsonDocument.class).find().first();
    assertThat(stored.get("version").getBsonType()).isEqualTo(BsonType.INT64);
    assertThat(stored.getInt64("version").getValue()).isZero();
  }
}
