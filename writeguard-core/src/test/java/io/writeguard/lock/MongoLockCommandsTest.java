package io.writeguard.lock;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.or;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.setOnInsert;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.model.Projections;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonReader;
import org.bson.BsonWriter;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.EncoderContext;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.Test;

/**
 * The lease lock's commands are the BSON the driver's builders rendered, field for field and
 * in the same order, whatever the registry: with the driver's codecs (built directly) and with
 * codecs of the application's own for strings and longs (encoded through the registry).
 */
class MongoLockCommandsTest {
  private static final CodecRegistry DEFAULTS = MongoClientSettings.getDefaultCodecRegistry();

  @Test
  void theCommandsAreWhatTheBuildersRendered() {
    for (CodecRegistry registry : List.of(DEFAULTS, ownStringsAndLongs())) {
      MongoLockCommands commands = new MongoLockCommands(registry);
      for (String[] call : List.of(new String[] {"orders:42", "node-a", "9f3c.1k"},
          new String[] {"k", "you", "x.7"})) {
        String key = call[0];
        String owner = call[1];
        String attempt = call[2];
        assertSame(commands.takeFilter(key, owner, attempt),
            and(eq("_id", key), or(eq(MongoLockStore.OWNER, null),
                MongoLockCommands.expiredFor(0), and(eq(MongoLockStore.OWNER, owner),
                    eq(MongoLockStore.ATTEMPT, attempt)))), registry);
        assertSame(commands.takeUpdate(owner, attempt, 30_000L, 32L),
            combine(set(MongoLockStore.OWNER, owner), set(MongoLockStore.ATTEMPT, attempt),
                set(MongoLockStore.LEASE_MS, 30_000L), inc(MongoLockStore.TOKEN, 32L),
                currentDate(MongoLockStore.ACQUIRED_AT), currentDate(MongoLockStore.RENEWED_AT),
                setOnInsert(MongoLockStore.FRESH, true)), registry);
        assertSame(commands.ours(key, owner, attempt), and(eq("_id", key),
            eq(MongoLockStore.OWNER, owner), eq(MongoLockStore.ATTEMPT, attempt)), registry);
      }
      assertSame(commands.release(), combine(set(MongoLockStore.OWNER, null),
          currentDate(MongoLockStore.RELEASED_AT)), registry);
      assertSame(commands.renewal(), currentDate(MongoLockStore.RENEWED_AT), registry);
      assertSame(commands.releaseProjection(), Projections.include(MongoLockStore.ACQUIRED_AT,
          MongoLockStore.CONTENDED_AT), registry);
    }
  }

  /** The shared parts are sent as they are: building commands never changes them. */
  @Test
  void buildingCommandsLeavesTheSharedPartsAsTheyWere() {
    MongoLockCommands commands = new MongoLockCommands(DEFAULTS);
    BsonDocument release = commands.release().clone();
    BsonDocument firstUpdate = commands.takeUpdate("a", "1", 10L, 2L).clone();
    BsonDocument firstFilter = commands.takeFilter("k", "a", "1").clone();
    commands.takeUpdate("b", "2", 20L, 4L);
    commands.takeFilter("j", "b", "2");
    assertThat(commands.release()).isEqualTo(release);
    assertThat(commands.takeUpdate("a", "1", 10L, 2L)).isEqualTo(firstUpdate);
    assertThat(commands.takeFilter("k", "a", "1")).isEqualTo(firstFilter);
  }

  /** Equal, and with the fields in the same order (BsonDocument equality ignores order). */
  private static void assertSame(BsonDocument built, Bson rendered, CodecRegistry registry) {
    BsonDocument expected = rendered.toBsonDocument(BsonDocument.class, registry);
    assertThat(built).isEqualTo(expected);
    assertThat(built.toJson()).isEqualTo(expected.toJson());
  }

  /** Strings and longs written by codecs of the application's own (tagged, so they differ). */
  private static CodecRegistry ownStringsAndLongs() {
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
    return CodecRegistries.fromRegistries(CodecRegistries.fromCodecs(strings, longs), DEFAULTS);
  }
}
