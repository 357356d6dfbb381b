package io.writeguard.update;

import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonDocumentReader;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.DocumentCodec;
import org.bson.types.Binary;
import org.bson.types.Code;
import org.bson.types.Decimal128;
import org.bson.types.MaxKey;
import org.bson.types.MinKey;
import org.bson.types.ObjectId;
import org.bson.types.Symbol;

/**
 * Gives each caller of one group-commit round its own {@link Document} of a state, at a cost
 * that does not grow with the parts of the document no caller changes.
 *
 * <p>Why. Every mutator gets a private copy it may change freely, as it would alone. Decoding
 * the whole document per caller copies every byte of it each time (the driver's {@link Binary}
 * clones its bytes), so a padded hot document cost each caller its full size. Instead this
 * keeps one decoded state that it never hands out: a top-level field whose BSON value is the
 * same object as in the previous state (the in-memory model shares what an update does not
 * touch) keeps its decoded value, and only the others are decoded, together in one call of the
 * store's codec. Each caller then gets a copy of that decoded state: containers
 * ({@link Document}, {@link ArrayList}, {@link Date}) are copied, values that cannot change
 * (strings, numbers, {@link ObjectId}, {@link Binary}...) are shared, and a field holding any
 * other class is decoded afresh for that caller, so a codec's own types are never shared.
 * Whatever is decoded for a caller reads binaries as copies: a {@link BsonDocumentReader} hands
 * out the state's own {@link BsonBinary}, whose array the driver's byte[] and BsonBinary codecs
 * pass on as they are. Only the driver's {@link DocumentCodec} is known to decode each field by
 * its name and value alone; any other codec decodes the whole state for each caller.
 * Confined to the thread running the round.
 */
final class RoundDocuments {
  /** The driver's decoder context holds no state: one serves every decode of a round. */
  static final DecoderContext DECODING = DecoderContext.builder().build();

  private final Codec<Document> codec;
  private BsonDocument lastState;
  /**
   * The decoded value of each field of {@code lastState} (and of fields earlier states had):
   * never handed out, so values are shared only where {@link #copyOrNull} says they may be.
   */
  private final Map<String, Object> decoded = new HashMap<>();

  private final boolean fieldByField;

  RoundDocuments(Codec<Document> codec) {
    this.codec = codec;
    this.fieldByField = codec.getClass() == DocumentCodec.class;
  }

  /** A private copy of {@code state}, decoded as the store's codec decodes it. */
  Document copyOf(BsonDocument state) {
    if (!fieldByField) {
      return codec.decode(new CopyingReader(state), DECODING);
    }
    decode(state);
    Document copy = new Document();
    for (String key : state.keySet()) {
      Object decodedValue = decoded.get(key);
      Object value = copyOrNull(decodedValue);
      copy.put(key, value != null || decodedValue == null
          ? value : decodeField(key, state.get(key), true));
    }
    return copy;
  }

  /**
   * Brings {@link #decoded} up to {@code state}: the fields whose value is not the one decoded
   * last time are decoded, together in one call.
   */
  private void decode(BsonDocument state) {
    if (state == lastState) {
      return;
    }
    BsonDocument changed = null;
    for (Map.Entry<String, BsonValue> field : state.entrySet()) {
      String key = field.getKey();
      if (lastState == null || lastState.get(key) != field.getValue()
          || !decoded.containsKey(key)) {
        if (changed == null) {
          changed = new BsonDocument();
        }
        changed.put(key, field.getValue());
      }
    }
    if (changed != null) {
      decoded.putAll(
          codec.decode(new BsonDocumentReader(changed), DECODING));
    }
    lastState = state;
  }

  /** {@code handedOut}: for a caller, so read from copies of the state's binaries. */
  private Object decodeField(String key, BsonValue value, boolean handedOut) {
    BsonDocument alone = new BsonDocument(key, value);
    Document one = codec.decode(
        handedOut ? new CopyingReader(alone) : new BsonDocumentReader(alone),
        DECODING);
    return one.get(key);
  }

  /** Reads each binary as a copy, never as the document's own {@link BsonBinary}. */
  private static final class CopyingReader extends BsonDocumentReader {
    CopyingReader(BsonDocument document) {
      super(document);
    }

    @Override
    protected BsonBinary doReadBinaryData() {
      BsonBinary own = super.doReadBinaryData();
      return new BsonBinary(own.getType(), own.getData().clone());
    }
  }

  /** A copy of {@code value} no other caller shares, or null when its class is not known. */
  private static Object copyOrNull(Object value) {
    if (value == null || isImmutable(value)) {
      return value;
    }
    Class<?> type = value.getClass();
    if (type == Document.class) {
      Document copy = new Document();
      for (Map.Entry<String, Object> e : ((Document) value).entrySet()) {
        Object v = copyOrNull(e.getValue());
        if (v == null && e.getValue() != null) {
          return null;
        }
        copy.put(e.getKey(), v);
      }
      return copy;
    }
    if (type == ArrayList.class) {
      List<?> list = (List<?>) value;
      List<Object> copy = new ArrayList<>(list.size());
      for (Object element : list) {
        Object v = copyOrNull(element);
        if (v == null && element != null) {
          return null;
        }
        copy.add(v);
      }
      return copy;
    }
    if (type == Date.class) {
      return new Date(((Date) value).getTime());
    }
    return null;
  }

  private static boolean isImmutable(Object value) {
    Class<?> type = value.getClass();
    return type == String.class || type == Integer.class || type == Long.class
        || type == Double.class || type == Boolean.class || type == ObjectId.class
        || type == Decimal128.class || type == Binary.class || type == java.util.UUID.class
        || type == org.bson.BsonTimestamp.class
        || type == Code.class || type == Symbol.class || type == MinKey.class
        || type == MaxKey.class || type == org.bson.BsonRegularExpression.class
        || type == org.bson.BsonUndefined.class || type == org.bson.BsonDbPointer.class;
  }
}
