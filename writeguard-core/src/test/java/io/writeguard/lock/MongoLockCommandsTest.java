package io.writeguard.lock;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.or;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.setOnInsert;
import static io.writeguard.lock.BuiltBson.assertSameBson;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.model.Projections;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.codecs.configuration.CodecRegistry;
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
    for (CodecRegistry registry : List.of(DEFAULTS, BuiltBson.ownStringsAndLongs())) {
      MongoLockCommands commands = new MongoLockCommands(registry);
      for (String[] call : List.of(new String[] {"orders:42", "node-a", "9f3c.1k"},
          new String[] {"k", "you", "x.7"})) {
        assertPerCallCommandsAreTheBuilders(registry, call[0], call[1], call[2]);
      }
      assertSameBson(commands.release(), combine(set(MongoLockStore.OWNER, null),
          currentDate(MongoLockStore.RELEASED_AT)), registry);
      assertSameBson(commands.renewal(), currentDate(MongoLockStore.RENEWED_AT), registry);
      assertSameBson(commands.releaseProjection(), Projections.include(MongoLockStore.ACQUIRED_AT,
          MongoLockStore.CONTENDED_AT), registry);
    }
  }

  /** The take's filter and update and the holder's filter, against the builders'. */
  static void assertPerCallCommandsAreTheBuilders(CodecRegistry registry, String key,
      String owner, String attempt) {
    MongoLockCommands commands = new MongoLockCommands(registry);
    assertSameBson(commands.takeFilter(key, owner, attempt),
        and(eq("_id", key), or(eq(MongoLockStore.OWNER, null),
            MongoLockCommands.expiredFor(0), and(eq(MongoLockStore.OWNER, owner),
                eq(MongoLockStore.ATTEMPT, attempt)))), registry);
    assertSameBson(commands.takeUpdate(owner, attempt, 30_000L, 32L),
        combine(set(MongoLockStore.OWNER, owner), set(MongoLockStore.ATTEMPT, attempt),
            set(MongoLockStore.LEASE_MS, 30_000L), inc(MongoLockStore.TOKEN, 32L),
            currentDate(MongoLockStore.ACQUIRED_AT), currentDate(MongoLockStore.RENEWED_AT),
            setOnInsert(MongoLockStore.FRESH, true)), registry);
    assertSameBson(commands.ours(key, owner, attempt), and(eq("_id", key),
        eq(MongoLockStore.OWNER, owner), eq(MongoLockStore.ATTEMPT, attempt)), registry);
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
}
