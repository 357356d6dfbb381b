package io.writeguard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoCollection;
import io.writeguard.testing.TestMongo;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBinaryReader;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDocument;
import org.bson.BsonDocumentReader;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonReader;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.EncoderContext;
import org.bson.codecs.RawBsonDocumentCodec;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.io.BasicOutputBuffer;
import org.bson.io.ByteBufferBsonInput;
import org.bson.ByteBufNIO;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * The one-copy codec decodes what the driver's raw codec decodes, byte for byte, wherever a
 * reply holds a document, and leaves the reader where the driver's codec leaves it; it encodes
 * as the driver's codec does.
 */
class OneCopyRawCodecTest {
  private static final DecoderContext DECODING = DecoderContext.builder().build();

  private static List<BsonDocument> documents() {
    byte[] big = new byte[70_000];
    for (int i = 0; i < big.length; i++) {
      big[i] = (byte) i;
    }
    return List.of(
        new BsonDocument(),
        new BsonDocument("_id", new BsonInt32(1)).append("version", new BsonInt64(7)),
        new BsonDocument("_id", new org.bson.BsonObjectId(new ObjectId()))
            .append("nested", new BsonDocument("a", new BsonArray(List.of(new BsonString("x"),
                new BsonDocument("deep", new BsonDocument())))))
            .append("bits", new BsonBinary(new byte[] {1, 2, 3})),
        new BsonDocument("big", new BsonBinary(big)).append("after", new BsonString("end")));
  }

  /** A reply shaped as a cursor's: {@code {cursor: {firstBatch: [...], id: 0}, ok: 1}}. */
  private static byte[] reply(List<BsonDocument> batch) {
    BsonDocument reply = new BsonDocument("cursor",
        new BsonDocument("firstBatch", new BsonArray(new ArrayList<BsonValue>(batch)))
            .append("id", new BsonInt64(0)))
        .append("value", batch.isEmpty() ? new BsonDocument() : batch.get(batch.size() - 1))
        .append("ok", new BsonInt32(1));
    return bytes(reply);
  }

  private static byte[] bytes(BsonDocument document) {
    BasicOutputBuffer out = new BasicOutputBuffer();
    new BsonDocumentCodec().encode(new BsonBinaryWriter(out), document,
        EncoderContext.builder().build());
    return out.toByteArray();
  }

  private static BsonBinaryReader reader(byte[] bytes) {
    return new BsonBinaryReader(new ByteBufferBsonInput(new ByteBufNIO(ByteBuffer.wrap(bytes))));
  }

  /** Walks the reply with {@code codec}: each document of the batch, the value, then ok. */
  private static List<RawBsonDocument> walk(byte[] reply, Codec<RawBsonDocument> codec) {
    List<RawBsonDocument> decoded = new ArrayList<>();
    try (BsonBinaryReader reader = reader(reply)) {
      reader.readStartDocument();
      reader.readName("cursor");
      reader.readStartDocument();
      reader.readName("firstBatch");
      reader.readStartArray();
      while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
        decoded.add(codec.decode(reader, DECODING));
      }
      reader.readEndArray();
      assertThat(reader.readInt64("id")).isZero();
      reader.readEndDocument();
      reader.readName("value");
      decoded.add(codec.decode(reader, DECODING));
      assertThat(reader.readInt32("ok")).as("the reader goes on where it should").isEqualTo(1);
      reader.readEndDocument();
    }
    return decoded;
  }

  @Test
  void decodesEveryDocumentOfAReplyAsTheDriversCodecAndLeavesTheReaderAsItDoes() {
    List<BsonDocument> batch = documents();
    byte[] reply = reply(batch);
    List<RawBsonDocument> ours = walk(reply, OneCopyRawCodec.instance());
    List<RawBsonDocument> drivers = walk(reply, new RawBsonDocumentCodec());
    assertThat(ours).hasSize(batch.size() + 1);
    for (int i = 0; i < ours.size(); i++) {
      assertThat(bytesOf(ours.get(i))).isEqualTo(bytesOf(drivers.get(i)));
      assertThat(ours.get(i)).isEqualTo(drivers.get(i));
    }
    assertThat(ours.subList(0, batch.size())).isEqualTo(batch);
  }

  @Test
  void aWholeDocumentOrAnotherReaderGoesToTheDriversCodec() {
    for (BsonDocument document : documents()) {
      try (BsonBinaryReader reader = reader(bytes(document))) {
        assertThat(OneCopyRawCodec.instance().decode(reader, DECODING)).isEqualTo(document);
      }
      BsonReader tree = new BsonDocumentReader(new BsonDocument("d", document));
      tree.readStartDocument();
      tree.readName("d");
      assertThat(OneCopyRawCodec.instance().decode(tree, DECODING)).isEqualTo(document);
    }
  }

  @Test
  void encodesAsTheDriversCodec() {
    for (BsonDocument document : documents()) {
      RawBsonDocument raw = new RawBsonDocument(bytes(document));
      BasicOutputBuffer ours = new BasicOutputBuffer();
      OneCopyRawCodec.instance().encode(new BsonBinaryWriter(ours), raw,
          EncoderContext.builder().build());
      BasicOutputBuffer drivers = new BasicOutputBuffer();
      new RawBsonDocumentCodec().encode(new BsonBinaryWriter(drivers), raw,
          EncoderContext.builder().build());
      assertThat(ours.toByteArray()).isEqualTo(drivers.toByteArray());
    }
  }

  @Test
  void theRawViewDecodesWithItAndEncodesEverythingElseWithTheCollectionsCodecs() {
    CodecRegistry own = CodecRegistries.fromRegistries(
        CodecRegistries.fromCodecs(new org.bson.codecs.StringCodec()),
        MongoClientSettings.getDefaultCodecRegistry());
    MongoCollection<Document> docs = TestMongo.freshDatabase("OneCopyRawCodec")
        .getCollection("d").withCodecRegistry(own);
    MongoCollection<RawBsonDocument> raw = OneCopyRawCodec.rawView(docs);
    assertThat(raw.getDocumentClass()).isEqualTo(RawBsonDocument.class);
    assertThat(raw.getNamespace()).isEqualTo(docs.getNamespace());
    assertThat(raw.getCodecRegistry().get(RawBsonDocument.class))
        .isSameAs(OneCopyRawCodec.instance());
    assertThat(raw.getCodecRegistry().get(Document.class).getClass())
        .isEqualTo(docs.getCodecRegistry().get(Document.class).getClass());
    for (BsonDocument document : documents()) {
      docs.withDocumentClass(BsonDocument.class).insertOne(document.containsKey("_id")
          ? document : document.clone().append("_id", new BsonInt32(document.size() + 100)));
    }
    assertThat(raw.find().into(new ArrayList<>()))
        .isEqualTo(docs.withDocumentClass(RawBsonDocument.class).find().into(new ArrayList<>()));
  }

  private static byte[] bytesOf(RawBsonDocument raw) {
    ByteBuffer buffer = raw.getByteBuffer().asNIO();
    byte[] out = new byte[buffer.remaining()];
    buffer.get(out);
    return out;
  }
}
