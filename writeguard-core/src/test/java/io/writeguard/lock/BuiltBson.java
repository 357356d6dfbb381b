package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoClientSettings;
import org.bson.BsonDocument;
import org.bson.BsonReader;
import org.bson.BsonWriter;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.EncoderContext;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.conversions.Bson;

/**
 * For tests of BSON built directly instead of by the driver's builders: the check that both are
 * the same, and a registry whose strings and longs an application encodes with codecs of its
 * own (tagged strings, so they differ from the driver's).
 */
final class BuiltBson {
  private BuiltBson() {}

  /** Equal, and with the fields in the same order (BsonDocument equality ignores order). */
  static void assertSameBson(Bson built, Bson rendered, CodecRegistry registry) {
    BsonDocument actual = built.toBsonDocument(BsonDocument.class, registry);
    BsonDocument expected = rendered.toBsonDocument(BsonDocument.class, registry);
    assertThat(actual).isEqualTo(expected);
    assertThat(actual.toJson()).isEqualTo(expected.toJson());
  }

  static CodecRegistry ownStringsAndLongs() {
    Codec<String> strings = new Codec<>() {
      @Override
      public void encode(BsonWriter writer, String value, EncoderContext context) {
        writer.writeString("s:" + value);
      }

      @Override
      public String decode(BsonReader reader, DecoderContext context) {
        return reader.readString().substring(2);
      }

      @Override
      public Class<String> getEncoderClass() {
        return String.class;
      }
    };
    Codec<Long> longs = new Codec<>() {
      @Override
      public void encode(BsonWriter writer, Long value, EncoderContext context) {
        writer.writeString("l:" + value);
      }

      @Override
      public Long decode(BsonReader reader, DecoderContext context) {
        return Long.parseLong(reader.readString().substring(2));
      }

      @Override
      public Class<Long> getEncoderClass() {
        return Long.class;
      }
    };
    return CodecRegistries.fromRegistries(CodecRegistries.fromCodecs(strings, longs),
        MongoClientSettings.getDefaultCodecRegistry());
  }
}
