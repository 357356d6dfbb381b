package io.writeguard.lock;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.lock.BuiltBson.assertSameBson;

import com.mongodb.MongoClientSettings;
import io.writeguard.version.VersionPolicy;
import java.util.Arrays;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonWriter;
import org.bson.codecs.EncoderContext;
import org.bson.codecs.IntegerCodec;
import org.bson.codecs.LongCodec;
import org.bson.codecs.ObjectIdCodec;
import org.bson.codecs.StringCodec;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * An application's codecs that extend the driver's own (the driver's codec classes are not
 * final) but write their values otherwise: the fenced writer's and the lease lock's commands
 * built as BSON must still be what the builders rendered with that registry, so the ids, the
 * owner, the attempt, the lease and the token are encoded by those codecs, not assumed.
 */
class DriverCodecSubclassesTest {
  private static final long TOKEN = 3_650_722_201_075_712L;

  /** Longs as strings, strings tagged, ints as int64, ObjectIds as their hex text. */
  static CodecRegistry subclassedDriverCodecs() {
    return CodecRegistries.fromRegistries(CodecRegistries.fromCodecs(
        new LongCodec() {
          @Override
          public void encode(BsonWriter writer, Long value, EncoderContext context) {
            writer.writeString("l:" + value);
          }
        },
        new StringCodec() {
          @Override
          public void encode(BsonWriter writer, String value, EncoderContext context) {
            writer.writeString("s:" + value);
          }
        },
        new IntegerCodec() {
          @Override
          public void encode(BsonWriter writer, Integer value, EncoderContext context) {
            writer.writeInt64(value);
          }
        },
        new ObjectIdCodec() {
          @Override
          public void encode(BsonWriter writer, ObjectId value, EncoderContext context) {
            writer.writeString(value.toHexString());
          }
        }), MongoClientSettings.getDefaultCodecRegistry());
  }

  @Test
  void fencedFiltersAndUpdatesAreWhatTheBuildersRenderedWithSubclassedDriverCodecs() {
    CodecRegistry registry = subclassedDriverCodecs();
    BsonDocument usable = VersionPolicy.defaults().usableFilter()
        .toBsonDocument(BsonDocument.class, registry);
    for (String field : List.of(Fencing.FIELD, "fence")) {
      FencedBsonTest.assertFiltersAreTheBuilders(registry, field,
          List.of(new ObjectId(), "k", 7, 7L), Arrays.asList(null, usable, eq("state", "open")));
      BsonDocument increment = (BsonDocument) VersionPolicy.defaults().increment();
      assertSameBson(new FencedBson(registry, field).update(increment, TOKEN),
          Fencing.fencedUpdate(increment.clone(), field, TOKEN), registry);
    }
  }

  @Test
  void leaseLockCommandsAreWhatTheBuildersRenderedWithSubclassedDriverCodecs() {
    MongoLockCommandsTest.assertPerCallCommandsAreTheBuilders(subclassedDriverCodecs(),
        "orders:42", "node-a", "9f3c.1k");
  }
}
