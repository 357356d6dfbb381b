package io.writeguard.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoClientSettings;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.BsonWriter;
import org.bson.Document;
import org.bson.codecs.EncoderContext;
import org.bson.codecs.LongCodec;
import org.bson.codecs.ObjectIdCodec;
import org.bson.codecs.StringCodec;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.types.Binary;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/** The usual ids as BSON without encoding them: exactly what encoding them gives, or nothing. */
class UsualIdsTest {
  private static final CodecRegistry DEFAULTS = MongoClientSettings.getDefaultCodecRegistry();

  /** The defaults but for strings, which it writes as ObjectIds (with the driver's codec). */
  private static CodecRegistry stringsAsObjectIds() {
    return CodecRegistries.fromRegistries(
        CodecRegistries.fromCodecs(new StringCodec().withRepresentation(BsonType.OBJECT_ID)),
        DEFAULTS);
  }

  private static BsonValue encoded(Object id, CodecRegistry registry) {
    return new Document("_id", id).toBsonDocument(BsonDocument.class, registry).get("_id");
  }

  @Test
  void theUsualIdsAreTheValuesEncodingGives() {
    for (Object id : List.of(new ObjectId(), "k", "", 7L, 7, Long.MIN_VALUE, Integer.MAX_VALUE)) {
      assertThat(UsualIds.of(DEFAULTS).asBson(id)).as("%s", id).isEqualTo(encoded(id, DEFAULTS));
      assertThat(UsualIds.of(DEFAULTS).driverEncodes(id)).isTrue();
    }
  }

  @Test
  void otherIdsAreLeftToEncoding() {
    for (Object id : List.of(7.0, new Decimal128(7), new byte[] {1}, new Binary(new byte[] {1}),
        new Document("a", 1), List.of(1), true)) {
      assertThat(UsualIds.of(DEFAULTS).asBson(id)).as("%s", id).isNull();
      assertThat(UsualIds.of(DEFAULTS).driverEncodes(id)).isFalse();
    }
  }

  @Test
  void aRegistryWithItsOwnCodecForAnIdTypeHasItEncoded() {
    CodecRegistry stringsAsObjectIds = stringsAsObjectIds();
    String hex = new ObjectId().toHexString();
    assertThat(encoded(hex, stringsAsObjectIds).isObjectId()).isTrue();
    assertThat(UsualIds.of(stringsAsObjectIds).asBson(hex)).isNull();
    // still the driver's codec, so keyed as today; only its BSON is left to encoding
    assertThat(UsualIds.of(stringsAsObjectIds).driverEncodes(hex)).isTrue();
    assertThat(UsualIds.of(stringsAsObjectIds).asBson(7L)).isEqualTo(encoded(7L, DEFAULTS));
  }

  /**
   * The driver's codec classes are not final: a subclass of one that writes its values
   * otherwise (here longs as strings) is the application's codec, so the value is what it
   * encodes, not what the driver's class would.
   */
  @Test
  void aSubclassOfTheDriversCodecHasItsIdsEncoded() {
    CodecRegistry longsAsText = CodecRegistries.fromRegistries(
        CodecRegistries.fromCodecs(new LongCodec() {
          @Override
          public void encode(BsonWriter writer, Long value, EncoderContext context) {
            writer.writeString("l:" + value);
          }
        }), DEFAULTS);
    assertThat(UsualIds.of(longsAsText).encode(7L)).isEqualTo(encoded(7L, longsAsText))
        .isEqualTo(new BsonString("l:7"));
    assertThat(UsualIds.of(longsAsText).encode(7)).isEqualTo(encoded(7, DEFAULTS));
  }

  @Test
  void aRegistryWithoutACodecForAnIdTypeHasTheOthersStillKnown() {
    CodecRegistry noIntegers = CodecRegistries.fromCodecs(new StringCodec(),
        new ObjectIdCodec(), new LongCodec());
    assertThat(UsualIds.of(noIntegers).driverEncodes(7)).isFalse();
    assertThat(UsualIds.of(noIntegers).driverEncodes(7L)).isTrue();
    assertThat(UsualIds.of(noIntegers).asBson(7L)).isNull(); // no Document codec to say so
  }

  @Test
  void registriesUsedTogetherAreAllRemembered() {
    List<CodecRegistry> registries = new ArrayList<>();
    for (int i = 0; i < UsualIds.REMEMBERED; i++) {
      registries.add(CodecRegistries.fromRegistries(DEFAULTS));
    }
    List<UsualIds> first = registries.stream().map(UsualIds::of).toList();
    for (int i = 0; i < registries.size(); i++) {
      assertThat(UsualIds.of(registries.get(i))).isSameAs(first.get(i));
    }
    UsualIds.of(CodecRegistries.fromRegistries(DEFAULTS)); // one more: the oldest goes
    assertThat(UsualIds.of(registries.get(0))).isNotSameAs(first.get(0));
    assertThat(UsualIds.of(registries.get(0)).asBson(7L)).isEqualTo(encoded(7L, DEFAULTS));
  }

  @Test
  void eachRegistryIsAskedAboutItsOwnCodecs() {
    CodecRegistry other = stringsAsObjectIds();
    String hex = new ObjectId().toHexString();
    assertThat(UsualIds.of(DEFAULTS).asBson(hex)).isNotNull();
    assertThat(UsualIds.of(other).asBson(hex)).isNull();
    assertThat(UsualIds.of(DEFAULTS).asBson(hex)).isNotNull();
    assertThat(UsualIds.of(DEFAULTS)).isSameAs(UsualIds.of(DEFAULTS));
  }
}
