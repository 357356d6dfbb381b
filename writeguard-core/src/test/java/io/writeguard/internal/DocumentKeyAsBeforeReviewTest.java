package io.writeguard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoClientSettings;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonBinary;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonReader;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonWriter;
import org.bson.Document;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.EncoderContext;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.bson.types.Symbol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Review of 9192fd8: for every pair of ids, under the default registry and registries whose
 * String or ObjectId codec encodes differently, two keys are equal now exactly when they were
 * equal before (compared with {@link PreviousDocumentKey}, the class as it was), equal keys hash
 * alike, and the lock text is the one it was.
 */
@Timeout(60)
class DocumentKeyAsBeforeReviewTest {
  private static final ObjectId OID = new ObjectId("0123456789abcdef01234567");

  /** Encodes a String as an ObjectId when it is one's hex, else as a string. */
  private static final class HexStringAsObjectId implements Codec<String> {
    @Override
    public void encode(BsonWriter w, String s, EncoderContext c) {
      if (ObjectId.isValid(s)) {
        w.writeObjectId(new ObjectId(s));
      } else {
        w.writeString(s);
      }
    }

    @Override
    public String decode(BsonReader r, DecoderContext c) {
      return r.readString();
    }

    @Override
    public Class<String> getEncoderClass() {
      return String.class;
    }
  }

  /** Encodes a String as a symbol. */
  private static final class StringAsSymbol implements Codec<String> {
    @Override
    public void encode(BsonWriter w, String s, EncoderContext c) {
      w.writeSymbol(s);
    }

    @Override
    public String decode(BsonReader r, DecoderContext c) {
      return r.readSymbol();
    }

    @Override
    public Class<String> getEncoderClass() {
      return String.class;
    }
  }

  /** Encodes an ObjectId as its hex string. */
  private static final class ObjectIdAsHex implements Codec<ObjectId> {
    @Override
    public void encode(BsonWriter w, ObjectId o, EncoderContext c) {
      w.writeString(o.toHexString());
    }

    @Override
    public ObjectId decode(BsonReader r, DecoderContext c) {
      return new ObjectId(r.readString());
    }

    @Override
    public Class<ObjectId> getEncoderClass() {
      return ObjectId.class;
    }
  }

  /** Encodes a Long as a decimal string (and an Integer as a double). */
  private static final class LongAsText implements Codec<Long> {
    @Override
    public void encode(BsonWriter w, Long l, EncoderContext c) {
      w.writeString(Long.toString(l));
    }

    @Override
    public Long decode(BsonReader r, DecoderContext c) {
      return Long.parseLong(r.readString());
    }

    @Override
    public Class<Long> getEncoderClass() {
      return Long.class;
    }
  }

  private static CodecRegistry with(Codec<?>... codecs) {
    return CodecRegistries.fromRegistries(CodecRegistries.fromCodecs(codecs),
        MongoClientSettings.getDefaultCodecRegistry());
  }

  private static List<Object> ids() {
    String hex = OID.toHexString();
    return List.of(
        "7", "", "k", "s1:x", "o" + hex, hex, hex.toUpperCase(), "#7;", "{}",
        new BsonString("k"), new BsonString(hex), new BsonString(""),
        new Symbol("k"), new Symbol(hex), new BsonSymbol("k"), new BsonSymbol(hex),
        OID, new BsonObjectId(OID), new ObjectId("0123456789abcdef01234568"),
        7, 7L, 7.0, new BsonInt32(7), new BsonInt64(7), new BsonDouble(7.0),
        Decimal128.parse("7"), Decimal128.parse("7.000"), new BsonDecimal128(Decimal128.parse("7E0")),
        -0.0, 0, 0L, Decimal128.parse("-0"), 7.5, Long.MAX_VALUE, 1e30,
        new Document("a", 1), new Document("a", 1L), new Document("a", "k"),
        new BsonDocument("a", new BsonSymbol("k")), new Document("o", OID),
        new BsonBinary(new byte[] {7}), true, new java.util.Date(7));
  }

  @Test
  void keysAreEqualExactlyWhenTheyWereAndLockTextsAreUnchanged() {
    List<CodecRegistry> registries = List.of(MongoClientSettings.getDefaultCodecRegistry(),
        with(new HexStringAsObjectId()), with(new StringAsSymbol()), with(new ObjectIdAsHex()),
        with(new LongAsText()), with(new ObjectIdAsHex(), new HexStringAsObjectId()));
    List<String> wrong = new ArrayList<>();
    int pairs = 0;
    for (CodecRegistry registry : registries) {
      List<Object> ids = ids();
      for (Object a : ids) {
        DocumentKey na = DocumentKey.of(a, registry);
        PreviousDocumentKey oa = PreviousDocumentKey.of(a, registry);
        if (!na.lockText().equals(oa.lockText())) {
          wrong.add("lock text of " + describe(a) + ": " + na.lockText() + " was "
              + oa.lockText());
        }
        for (Object b : ids) {
          pairs++;
          DocumentKey nb = DocumentKey.of(b, registry);
          boolean was = oa.equals(PreviousDocumentKey.of(b, registry));
          boolean is = na.equals(nb);
          if (was != is) {
            wrong.add(describe(a) + " vs " + describe(b) + ": equal " + is + ", was " + was);
          }
          if (is && na.hashCode() != nb.hashCode()) {
            wrong.add(describe(a) + " vs " + describe(b) + ": equal but hash differs");
          }
        }
      }
    }
    assertThat(pairs).isGreaterThan(1000);
    assertThat(wrong).isEmpty();
  }

  @Test
  void aKeyFromAnotherThreadHasTheLockTextOfItsObjectId() throws Exception {
    DocumentKey key = DocumentKey.of(OID, MongoClientSettings.getDefaultCodecRegistry());
    String[] seen = new String[1];
    Thread t = new Thread(() -> seen[0] = key.lockText());
    t.start();
    t.join();
    assertThat(seen[0]).isEqualTo(OID.toHexString()).isEqualTo(key.lockText());
  }

  private static String describe(Object id) {
    return id.getClass().getSimpleName() + "(" + id + ")";
  }
}
