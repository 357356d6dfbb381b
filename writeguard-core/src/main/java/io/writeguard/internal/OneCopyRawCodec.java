package io.writeguard.internal;

import com.mongodb.client.MongoCollection;
import org.bson.AbstractBsonReader;
import org.bson.BsonBinaryReader;
import org.bson.BsonReader;
import org.bson.BsonSerializationException;
import org.bson.BsonType;
import org.bson.BsonWriter;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.EncoderContext;
import org.bson.codecs.RawBsonDocumentCodec;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.io.BsonInput;
import org.bson.io.BsonInputMark;

/**
 * The driver's {@link RawBsonDocumentCodec}, decoding a document of a server reply with one
 * copy of its bytes. Not API; stateless and thread-safe.
 *
 * <p>Why it exists. The driver's codec pipes the document through a growing output buffer: a
 * scratch array, then one or two buffers as it grows, each as large as the document. A
 * document read for an update is read whole, so those copies cost as much as the document on
 * every call. Here, when the reader is positioned on a document value of a binary reply (an
 * element of a cursor's batch, the {@code value} of a {@code findAndModify}), its bytes are
 * copied once into an array of their exact size; the reader is left where the driver's codec
 * leaves it (it skips the value itself, so its state moves on as it would). Any other reader or
 * position goes to the driver's codec. Encoding is the driver's.
 */
public final class OneCopyRawCodec implements Codec<RawBsonDocument> {
  private static final OneCopyRawCodec INSTANCE = new OneCopyRawCodec();
  private static final RawBsonDocumentCodec DRIVER = new RawBsonDocumentCodec();

  private OneCopyRawCodec() {}

  /**
   * {@code collection} answering with {@link RawBsonDocument}s decoded by this codec. Its
   * registry puts this codec before the collection's own, which still encodes every filter and
   * update.
   */
  public static MongoCollection<RawBsonDocument> rawView(MongoCollection<Document> collection) {
    return collection.withDocumentClass(RawBsonDocument.class).withCodecRegistry(
        CodecRegistries.fromRegistries(CodecRegistries.fromCodecs(INSTANCE),
            collection.getCodecRegistry()));
  }

  /** The codec (for tests and for views made otherwise). */
  public static OneCopyRawCodec instance() {
    return INSTANCE;
  }

  @Override
  public RawBsonDocument decode(BsonReader reader, DecoderContext context) {
    if (!(reader instanceof BsonBinaryReader binary)
        || binary.getState() != AbstractBsonReader.State.VALUE
        || binary.getCurrentBsonType() != BsonType.DOCUMENT) {
      return DRIVER.decode(reader, context);
    }
    BsonInput input = binary.getBsonInput();
    BsonInputMark start = input.getMark(Integer.MAX_VALUE);
    // The length is checked, and the bytes read, as the driver's codec does, so a corrupt
    // length fails with its BsonSerializationException (skipValue checks only for a negative
    // one, and would step back on a length under 4 or past the reply's end on a long one).
    int size = input.readInt32();
    if (size < 5) {
      throw new BsonSerializationException("Document size must be at least 5");
    }
    byte[] bytes = new byte[size];
    for (int i = 0; i < 4; i++) {
      bytes[i] = (byte) (size >>> (8 * i)); // little-endian, as it was read
    }
    input.readBytes(bytes, 4, size - 4);
    start.reset();
    binary.skipValue(); // moves the reader past the document, as the driver's codec leaves it
    return new RawBsonDocument(bytes);
  }

  @Override
  public void encode(BsonWriter writer, RawBsonDocument value, EncoderContext context) {
    DRIVER.encode(writer, value, context);
  }

  @Override
  public Class<RawBsonDocument> getEncoderClass() {
    return RawBsonDocument.class;
  }
}
