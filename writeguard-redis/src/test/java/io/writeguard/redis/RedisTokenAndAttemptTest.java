package io.writeguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.LockHandle;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Issue 8: Redis fencing tokens across a restart and at any rate; takes that recognise their own attempt. */
class RedisTokenAndAttemptTest {
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private static RedisCommands<String, String> redis;
  private final String prefix = "wgtok:" + UUID.randomUUID().toString().substring(0, 8) + ":";

  @BeforeAll
  static void connect() {
    client = RedisClient.create(TestRedis.uri());
    connection = client.connect();
    redis = connection.sync();
  }

  @AfterAll
  static void disconnect() {
    connection.close();
    client.shutdown();
  }

  /**
   * Regression: tokens started from the server clock in microseconds and counted on from there,
   * so blocks minted faster than one token per microsecond ran ahead of the clock, and a Redis
   * restarted without its data then handed out lower tokens. Blocks of 1024 in a tight loop
   * mint far faster than that; after a real restart (stop redis-server, start an empty one on
   * the same port) the next token is still higher.
   */
  @Test
  void tokensKeepRisingAcrossARestartOfRedisWithoutItsDataAfterMintingFast() {
    TestRedis.Server first = TestRedis.startPrivate();
    TestRedis.Server second = null;
    try (RedisLockService locks = RedisLockService.builder().uri(first.uri()).keyPrefix(prefix)
        .handoffBatch(RedisLockService.MAX_HANDOFF_BATCH).commandTimeout(Duration.ofSeconds(2)).build()) {
      long highest = 0;
      for (int i = 0; i < 300; i++) {
        try (LockHandle handle = locks.acquire("doc", Duration.ofSeconds(10))) {
          highest = handle.token() + RedisLockService.MAX_HANDOFF_BATCH - 1; // top of its block
        }
      }
      first.close();
      second = TestRedis.startOn(first.port());
      AtomicReference<LockHandle> after = new AtomicReference<>();
      await().atMost(Duration.ofSeconds(30)).ignoreException(LockBackendException.class)
          .until(() -> {
            after.set(locks.acquire("doc", Duration.ofSeconds(5)));
            return true;
          });
      try {
        assertThat(after.get().token()).as("first token after the restart").isGreaterThan(highest);
      } finally {
        after.get().close();
      }
    } finally {
      if (second != null) {
        second.close();
      }
    }
  }

  /** Every token minted at server millisecond T is below (T + 1) * 2048, however fast they are minted. */
  @Test
  void tokensNeverRunAheadOfTheServerClock() {
    try (RedisLockService locks = RedisLockService.builder().client(client).keyPrefix(prefix)
        .handoffBatch(RedisLockService.MAX_HANDOFF_BATCH).build()) {
      for (int i = 0; i < 300; i++) {
        long top;
        try (LockHandle handle = locks.acquire("fast", Duration.ofSeconds(10))) {
          top = handle.token() + RedisLockService.MAX_HANDOFF_BATCH - 1;
        }
        List<String> time = redis.time();
        long nowMs = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        assertThat(top).as("take " + i).isLessThan((nowMs + 1) * 2048);
      }
    }
  }

  /** Regression: a take sent twice (Lettuce resends after a reconnect) found the key busy with its own value. */
  @Test
  void aTakeSentAgainFindsItsOwnAttemptAndGetsTheSameTokens() throws Exception {
    LockScripts scripts = new LockScripts(connection.async());
    scripts.load();
    long first = scripts.acquire(prefix + "{doc}", "me:7", 10_000, 4, "me", true).get();
    assertThat(first).isPositive();
    assertThat(scripts.acquire(prefix + "{doc}", "me:7", 10_000, 4, "me", true).get()).as("the same attempt again").isEqualTo(first);
    assertThat(scripts.acquire(prefix + "{doc}", "me:8", 10_000, 4, "me", true).get()).as("another attempt: busy").isNegative();
    assertThat(scripts.release(prefix + "{doc}", "me:7", prefix + "{doc}", 1000, "me", 20).get()).isEqualTo(1L);
  }

  /** Regression: a take applied at Redis whose reply was lost blocked the key for a whole lease. */
  @Test
  void aTakeWhoseReplyWasLostIsAbandonedAndDoesNotBlockTheKey() {
    AtomicReference<Boolean> loseReply = new AtomicReference<>(true);
    RedisLockService.Builder builder = RedisLockService.builder().client(client).keyPrefix(prefix)
        .lease(Duration.ofSeconds(60));
    try (RedisLockService locks = builder.storeView(store -> new LosingStore(store, loseReply)).build();
        RedisLockService other = RedisLockService.builder().client(client).keyPrefix(prefix).build()) {
      assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> locks.acquire("doc", Duration.ofSeconds(5))))
          .isInstanceOf(LockBackendException.class).hasMessageContaining("reply lost");
      await().atMost(Duration.ofSeconds(10)).until(() -> redis.hget(prefix + "{doc}", "o") == null);
      assertThat(other.tryAcquire("doc")).hasValueSatisfying(LockHandle::close);
    }
  }
}
