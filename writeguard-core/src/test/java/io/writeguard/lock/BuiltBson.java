package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoClientSettings;
import java.util.function.Function;
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
    return CodecRegistries.fromRegistries(CodecRegistries.fromCodecs(
            tagged(String.class, "s:", text -> text), tagged(Long.class, "l:", Long::parseLong)),
        MongoClientSettings.getDefaultCodecRegistry());
  }

  /** Writes a {@code type} as a string: {@code tag} and its text. */
  private static <T> Codec<T> tagged(Class<T> type, String tag, Function<String, T> parse) {
    return new Codec<>() {
      @Override
      public void encode(BsonWriter writer, T value, EncoderContext context) {
        writer.writeString(tag + value);
      }

      @Override
      public T decode(BsonReader reader, DecoderContext context) {
        return parse.apply(reader.readString().substring(tag.length()));
      }

      @Override
      public Class<T> getEncoderClass() {
        return type;
      }
    };
  }
}
