package io.writeguard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoClientSettings;
import java.util.List;
import org.bson.BsonBinary;
import org.bson.BsonDbPointer;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonJavaScript;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonRegularExpression;
import org.bson.BsonTimestamp;
import org.bson.BsonUndefined;
import org.bson.BsonString;
import org.bson.Document;
import org.bson.types.Binary;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/** Keys are equal exactly when MongoDB would take the two ids for one document. */
class DocumentKeyTest {
  private static DocumentKey key(Object id) {
    return DocumentKey.of(id, MongoClientSettings.getDefaultCodecRegistry());
  }

  private static void same(Object a, Object b) {
    assertThat(key(a)).as("%s and %s", a, b).isEqualTo(key(b));
    assertThat(key(a).hashCode()).isEqualTo(key(b).hashCode());
    assertThat(key(a).lockText()).isEqualTo(key(b).lockText());
  }

  private static void different(Object a, Object b) {
    assertThat(key(a)).as("%s and %s", a, b).isNotEqualTo(key(b));
  }

  /**
   * The usual ids (String, ObjectId, Integer, Long) are keyed without encoding them; their keys
   * must be exactly those of the same values encoded (given as BSON values, which take the
   * encoding path), canonical text, hash and lock text alike.
   */
  @Test
  void theUsualIdsKeyedDirectlyEqualTheSameValuesEncoded() {
    java.util.Random random = new java.util.Random(20261204L);
    for (int i = 0; i < 2_000; i++) {
      long n = switch (i % 4) {
        case 0 -> random.nextLong();
        case 1 -> random.nextInt();
        case 2 -> i - 1_000;
        default -> i % 8 == 3 ? Long.MIN_VALUE : Long.MAX_VALUE;
      };
      same(n, new org.bson.BsonInt64(n));
      same(n, new org.bson.BsonDecimal128(new Decimal128(java.math.BigDecimal.valueOf(n))));
      if (n == (int) n) {
        same((int) n, new org.bson.BsonInt32((int) n));
      }
      StringBuilder text = new StringBuilder();
      for (int c = random.nextInt(6); c > 0; c--) {
        text.appendCodePoint(random.nextBoolean() ? 'a' + random.nextInt(26)
            : random.nextBoolean() ? '0' + random.nextInt(10) : 0x80 + random.nextInt(0x10000));
      }
      same(text.toString(), new org.bson.BsonString(text.toString()));
      org.bson.types.ObjectId oid = new org.bson.types.ObjectId();
      same(oid, new org.bson.BsonObjectId(oid));
    }
    different("7", 7L);
    different("1:a", "1:a;");
  }

  @Test
  void aStringIdEncodedByAnotherCodecIsKeyedAsThatCodecEncodesIt() {
    org.bson.codecs.Codec<String> asSymbol = new org.bson.codecs.Codec<>() {
      public void encode(org.bson.BsonWriter w, String v, org.bson.codecs.EncoderContext c) {
        w.writeInt64(v.length());
      }

      public String decode(org.bson.BsonReader r, org.bson.codecs.DecoderContext c) {
        throw new UnsupportedOperationException();
      }

      public Class<String> getEncoderClass() {
        return String.class;
      }
    };
    org.bson.codecs.configuration.CodecRegistry lengths =
        org.bson.codecs.configuration.CodecRegistries.fromRegistries(
            org.bson.codecs.configuration.CodecRegistries.fromCodecs(asSymbol),
            MongoClientSettings.getDefaultCodecRegistry());
    assertThat(DocumentKey.of("abc", lengths)).isEqualTo(DocumentKey.of(3L, lengths));
  }

  @Test
  void numbersAreOneIdByTheirValueWhateverTheirType() {
    same(7, 7L);
    same(7L, 7.0);
    same(7.0, new Decimal128(new java.math.BigDecimal("7.00")));
    same(0.0, -0.0);
    same(Decimal128.NEGATIVE_ZERO, 0);
    same(0.5, new Decimal128(new java.math.BigDecimal("0.50")));
    same(Double.NaN, Decimal128.NaN);
    different(0.1, new Decimal128(new java.math.BigDecimal("0.1"))); // 0.1 is not exact in binary
    different(7, 8);
    different(Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY);
  }

  @Test
  void stringsBinariesAndObjectIdsAreComparedByValue() {
    same("k", new BsonString("k"));
    same(new byte[] {1, 2, 3}, new byte[] {1, 2, 3});
    same(new byte[] {1, 2, 3}, new Binary(new byte[] {1, 2, 3}));
    same(new BsonBinary(new byte[] {1}), new byte[] {1});
    different(new Binary((byte) 4, new byte[] {1}), new byte[] {1}); // another subtype
    ObjectId oid = new ObjectId();
    same(oid, new ObjectId(oid.toHexString()));
    assertThat(key(oid).lockText()).isEqualTo(oid.toHexString());
    assertThat(key("invoice-42").lockText()).isEqualTo("invoice-42");
    assertThat(key(42.0).lockText()).isEqualTo("42");
  }

  @Test
  void documentsKeepTheirFieldOrderAndTypesStayApart() {
    Document ab = new Document("a", 1).append("b", 2);
    Document ba = new Document("b", 2).append("a", 1);
    assertThat(ab).isEqualTo(ba); // Java says one, MongoDB says two
    different(ab, ba);
    same(ab, new Document("a", 1L).append("b", 2.0));
    different(List.of(1, 2), List.of(2, 1));
    different("7", 7);
    different("", List.of());
    different(new Document("a", "b"), new Document("ab", "")); // field names are delimited
    // Different documents may share a lock text; that only makes them wait for each other.
    assertThat(key("7").lockText()).isEqualTo(key(7).lockText());
  }

  @Test
  void everyValueIsDelimitedSoNoTwoDocumentsShareATextAndLockTextsStayShort() {
    different(new Document("a", 1).append("xxb16:yyyyyy", null),
        new Document("a", 11).append("xx", true).append("yyyyyy", null));
    different(new Document("d", new java.util.Date(1)).append("x12:y", 1),
        new Document("d", new java.util.Date(11)).append("2:y", 1));
    same("k", new org.bson.BsonSymbol("k")); // one _id, so one lock text too
    assertThat(key(Double.MIN_VALUE).lockText()).hasSizeLessThanOrEqualTo(65).startsWith("~");
    assertThat(key(1e300).lockText()).hasSizeLessThanOrEqualTo(65);
    different(1e300, new Decimal128(new java.math.BigDecimal("1E+300"))); // 1e300 is inexact
  }

  @Test
  void javaScriptWithScopeIdsAreRefusedNotKeyedByTheirPrintedForm() {
    // Keyed by toString(), two ids whose scopes differ printed alike and shared one key, so
    // group commit could run one document's update on another. MongoDB versions compare
    // scopes differently, so no key is exact: refused, naming the value.
    BsonJavaScriptWithScope one = new BsonJavaScriptWithScope("f()",
        new BsonDocument("x", new BsonInt32(1)));
    BsonJavaScriptWithScope two = new BsonJavaScriptWithScope("f()",
        new BsonDocument("x", new BsonInt32(2)));
    assertThatThrownBy(() -> key(one)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("JAVASCRIPT_WITH_SCOPE").hasMessageContaining("f()");
    assertThatThrownBy(() -> key(new Document("k", two)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void otherUnusualTypesAreKeyedByTheirWholeValue() {
    same(new BsonTimestamp(5, 1), new BsonTimestamp(5, 1));
    different(new BsonTimestamp(5, 1), new BsonTimestamp(5, 2));
    different(new BsonTimestamp(5, 1), new java.util.Date(5000));
    same(new BsonRegularExpression("a", "i"), new BsonRegularExpression("a", "i"));
    different(new BsonRegularExpression("a", "i"), new BsonRegularExpression("a", ""));
    different(new BsonRegularExpression("ai", ""), new BsonRegularExpression("a", "i"));
    same(new BsonJavaScript("f()"), new BsonJavaScript("f()"));
    different(new BsonJavaScript("f()"), new BsonJavaScript("g()"));
    different(new BsonJavaScript("f()"), "f()");
    ObjectId oid = new ObjectId();
    different(new BsonDbPointer("db.a", oid), new BsonDbPointer("db.b", oid));
    different(new BsonDbPointer("db.a", oid), new BsonDbPointer("db.a", new ObjectId()));
    same(new BsonMinKey(), new BsonMinKey());
    different(new BsonMinKey(), new BsonMaxKey());
    different(new BsonUndefined(), new BsonNull());
  }

  @Test
  void theKeyKeepsTheIdAsGiven() {
    assertThat(key(7).id()).isEqualTo(7);
    assertThat(key(new byte[] {10}).toString()).isEqualTo("0x0a");
  }
}
