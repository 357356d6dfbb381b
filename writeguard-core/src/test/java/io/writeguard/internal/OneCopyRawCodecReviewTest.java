package io.writeguard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.lang.reflect.Constructor;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBinaryReader;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.ByteBuf;
import org.bson.ByteBufNIO;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.EncoderContext;
import org.bson.codecs.RawBsonDocumentCodec;
import org.bson.io.BasicOutputBuffer;
import org.bson.io.ByteBufferBsonInput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Review of 8a810f7: the one-copy codec against the driver's on replies split across many
 * network buffers (the driver's own composite buffer), and on replies whose document length is
 * corrupt: it must decode the same bytes, leave the reader in the same place, and fail the same
 * way.
 */
@Timeout(120)
class OneCopyRawCodecReviewTest {
  private static final DecoderContext DECODING = DecoderContext.builder().build();

  private static byte[] bytes(BsonDocument document) {
    BasicOutputBuffer out = new BasicOutputBuffer();
    new BsonDocumentCodec().encode(new BsonBinaryWriter(out), document,
        EncoderContext.builder().build());
    return out.toByteArray();
  }

  private static List<BsonDocument> batch() {
    byte[] big = new byte[40_000];
    for (int i = 0; i < big.length; i++) {
      big[i] = (byte) (i * 31);
    }
    return List.of(new BsonDocument(), new BsonDocument("_id", new BsonInt32(1)),
        new BsonDocument("b", new BsonBinary(big)).append("s", new BsonString("end")),
        new BsonDocument(), new BsonDocument("n", new BsonDocument("d", new BsonArray())));
  }

  private static byte[] reply(List<BsonDocument> batch) {
    return bytes(new BsonDocument("cursor",
        new BsonDocument("nextBatch", new BsonArray(new ArrayList<BsonValue>(batch)))
            .append("id", new BsonInt64(42)).append("ns", new BsonString("db.c")))
        .append("ok", new BsonInt32(1)));
  }

  /** The driver's composite buffer over {@code bytes} cut every {@code chunk} bytes. */
  private static ByteBuf composite(byte[] bytes, int chunk) throws Exception {
    List<ByteBuf> parts = new ArrayList<>();
    for (int at = 0; at < bytes.length; at += chunk) {
      byte[] part = new byte[Math.min(chunk, bytes.length - at)];
      System.arraycopy(bytes, at, part, 0, part.length);
      parts.add(new ByteBufNIO(ByteBuffer.wrap(part)));
    }
    Class<?> type = Class.forName("com.mongodb.internal.connection.CompositeByteBuf");
    Constructor<?> make = type.getDeclaredConstructor(List.class);
    make.setAccessible(true);
    return (ByteBuf) make.newInstance(parts);
  }

  private static List<Object> walk(ByteBuf buffer, Codec<RawBsonDocument> codec) {
    List<Object> seen = new ArrayList<>();
    try (BsonBinaryReader reader = new BsonBinaryReader(new ByteBufferBsonInput(buffer))) {
      reader.readStartDocument();
      reader.readName("cursor");
      reader.readStartDocument();
      reader.readName("nextBatch");
      reader.readStartArray();
      while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
        RawBsonDocument d = codec.decode(reader, DECODING);
        ByteBuffer nio = d.getByteBuffer().asNIO();
        byte[] out = new byte[nio.remaining()];
        nio.get(out);
        seen.add(List.of(out.length, ByteBuffer.wrap(out)));
      }
      reader.readEndArray();
      seen.add(reader.readInt64("id"));
      seen.add(reader.readString("ns"));
      reader.readEndDocument();
      seen.add(reader.readInt32("ok"));
      reader.readEndDocument();
    }
    return seen;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3, 4, 5, 7, 13, 64, 4096, 16384})
  void aReplyCutIntoNetworkBuffersDecodesAsTheDriversCodecDecodesIt(int chunk) throws Exception {
    byte[] reply = reply(batch());
    List<Object> drivers = walk(composite(reply, chunk), new RawBsonDocumentCodec());
    List<Object> ours = walk(composite(reply, chunk), OneCopyRawCodec.instance());
    assertThat(ours).isEqualTo(drivers);
    assertThat(ours).hasSize(batch().size() + 3);
  }

  /** {@code {a: [{x: 1}], ok: 1}} with the array element's length set to {@code size}. */
  private static byte[] corrupt(int size) {
    byte[] reply = bytes(new BsonDocument("a",
        new BsonArray(List.of(new BsonDocument("x", new BsonInt32(1)))))
        .append("ok", new BsonInt32(1)));
    // 4 (length) + 1 (type) + "a\0" + 4 (array length) + 1 (type) + "0\0" = 14
    int at = 14;
    assertThat(ByteBuffer.wrap(reply, at, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt())
        .isEqualTo(12);
    ByteBuffer.wrap(reply, at, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(size);
    return reply;
  }

  private static Throwable decodeCorrupt(int size, Codec<RawBsonDocument> codec) {
    return catchThrowable(() -> {
      try (BsonBinaryReader reader = new BsonBinaryReader(
          new ByteBufferBsonInput(new ByteBufNIO(ByteBuffer.wrap(corrupt(size)))))) {
        reader.readStartDocument();
        reader.readName("a");
        reader.readStartArray();
        reader.readBsonType();
        codec.decode(reader, DECODING);
      }
    });
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 3, 4, 1000, 1 << 20})
  void aCorruptDocumentLengthFailsAsWithTheDriversCodec(int size) {
    Throwable drivers = decodeCorrupt(size, new RawBsonDocumentCodec());
    Throwable ours = decodeCorrupt(size, OneCopyRawCodec.instance());
    assertThat(drivers).isInstanceOf(org.bson.BsonSerializationException.class);
    assertThat(ours).as("size %s: %s", size, ours)
        .isInstanceOf(org.bson.BsonSerializationException.class)
        .hasMessage(drivers.getMessage());
  }
}
