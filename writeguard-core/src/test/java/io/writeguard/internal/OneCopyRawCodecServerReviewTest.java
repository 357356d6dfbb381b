package io.writeguard.internal;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.model.FindOneAndReplaceOptions;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import io.writeguard.testing.TestMongo;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.configuration.CodecRegistries;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Review of 8a810f7 against a server: documents up to the largest a server takes, cursors
 * read one document a batch (getMore replies), findAndModify values (none, upserted), and a
 * collection whose registry lacks the driver's defaults; every document byte for byte what the
 * driver's raw codec gives.
 */
@Timeout(300)
class OneCopyRawCodecServerReviewTest {
  private static final int MAX = 16 * 1024 * 1024;

  @Test
  void largeDocumentsAndOneDocumentBatchesReadAsTheDriversRawCodecReadsThem() {
    MongoCollection<Document> docs =
        TestMongo.freshDatabase("OneCopyReview").getCollection("big");
    // Sizes around the largest document, a pool buffer's size and tiny ones, in one collection.
    int[] payloads = {0, 1, 1 << 10, (1 << 16) - 40, 1 << 16, (1 << 20) - 40, MAX - 1024,
        MAX - 64, 3};
    MongoCollection<BsonDocument> bson = docs.withDocumentClass(BsonDocument.class);
    for (int i = 0; i < payloads.length; i++) {
      byte[] payload = new byte[payloads[i]];
      for (int j = 0; j < payload.length; j += 997) {
        payload[j] = (byte) (i + j);
      }
      bson.insertOne(new BsonDocument("_id", new BsonInt32(i)).append("p", new BsonBinary(payload)));
    }
    MongoCollection<RawBsonDocument> ours = OneCopyRawCodec.rawView(docs);
    MongoCollection<RawBsonDocument> drivers = docs.withDocumentClass(RawBsonDocument.class);
    for (int batchSize : new int[] {0, 1, 2, 3}) {
      assertThat(all(ours, batchSize)).as("batch size %s", batchSize)
          .isEqualTo(all(drivers, batchSize)).hasSize(payloads.length);
    }
    for (int i = 0; i < payloads.length; i++) {
      assertThat(ours.find(eq("_id", i)).first()).isEqualTo(drivers.find(eq("_id", i)).first());
    }
  }

  private static List<RawBsonDocument> all(MongoCollection<RawBsonDocument> c, int batchSize) {
    List<RawBsonDocument> out = new ArrayList<>();
    try (MongoCursor<RawBsonDocument> cursor =
        c.find().sort(new Document("_id", 1)).batchSize(batchSize).iterator()) {
      while (cursor.hasNext()) {
        out.add(cursor.next());
      }
    }
    return out;
  }

  @Test
  void findAndModifyValuesReadAsTheDriversRawCodecReadsThem() {
    MongoCollection<Document> docs =
        TestMongo.freshDatabase("OneCopyReview").getCollection("fam");
    MongoCollection<RawBsonDocument> ours = OneCopyRawCodec.rawView(docs);
    FindOneAndUpdateOptions after = new FindOneAndUpdateOptions()
        .returnDocument(ReturnDocument.AFTER);
    assertThat(ours.findOneAndUpdate(eq("_id", 1), Updates.inc("n", 1), after)).isNull();
    RawBsonDocument upserted = ours.findOneAndUpdate(eq("_id", 1), Updates.inc("n", 1),
        new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.AFTER));
    assertThat(upserted).isEqualTo(docs.withDocumentClass(RawBsonDocument.class)
        .find(eq("_id", 1)).first());
    assertThat(ours.findOneAndUpdate(eq("_id", 2), Updates.inc("n", 1),
        new FindOneAndUpdateOptions().upsert(true))).as("before an upsert: none").isNull();
    RawBsonDocument replacement = RawBsonDocument.parse("{_id: 1, n: 41, s: 'x'}");
    RawBsonDocument before = ours.findOneAndReplace(eq("_id", 1), replacement);
    assertThat(before).isEqualTo(upserted);
    RawBsonDocument replaced = ours.findOneAndReplace(eq("_id", 1), replacement,
        new FindOneAndReplaceOptions().returnDocument(ReturnDocument.AFTER));
    assertThat(replaced.toJson()).isEqualTo(replacement.toJson());
    assertThat(ours.findOneAndReplace(eq("_id", 9), replacement)).isNull();
    ours.insertOne(RawBsonDocument.parse("{_id: 3, raw: true}"));
    assertThat(docs.find(eq("_id", 3)).first()).isEqualTo(new Document("_id", 3)
        .append("raw", true));
  }

  @Test
  void aRegistryWithoutTheDriversDefaultsStillReadsRaw() {
    MongoCollection<Document> docs = TestMongo.freshDatabase("OneCopyReview").getCollection("reg")
        .withCodecRegistry(CodecRegistries.fromProviders(
            new org.bson.codecs.ValueCodecProvider(), new org.bson.codecs.DocumentCodecProvider(),
            new org.bson.codecs.BsonValueCodecProvider()));
    docs.insertOne(new Document("_id", 1).append("a", new Document("b", 2)));
    assertThat(OneCopyRawCodec.rawView(docs).find(eq("_id", 1)).first())
        .isEqualTo(docs.withDocumentClass(RawBsonDocument.class).find(eq("_id", 1)).first());
  }
}
