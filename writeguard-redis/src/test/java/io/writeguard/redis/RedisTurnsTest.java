package io.writeguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.writeguard.lock.LockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Turns between processes on Redis: a release that another owner waited for makes the
 * releasing owner yield ({@code acquire.lua}, {@code release.lua}), step by step at the
 * scripts, and a process that always has a successor queued never starves another's waiter.
 */
class RedisTurnsTest {
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private static RedisCommands<String, String> redis;

  private final String prefix = "wgturn:" + UUID.randomUUID().toString().substring(0, 8) + ":";
  private final String key = prefix + "{doc}";
  private final List<RedisLockService> services = new ArrayList<>();
  private LockScripts scripts;

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

  @AfterEach
  void closeServices() {
    services.forEach(RedisLockService::close);
  }

  private LockScripts scripts() throws Exception {
    if (scripts == null) {
      scripts = new LockScripts(connection.async());
      scripts.load();
    }
    return scripts;
  }

  private long take(String owner, int attempt, boolean queued) throws Exception {
    return scripts().acquire(key, owner + ":" + attempt, 10_000, 4, owner, queued).get();
  }

  private long release(String owner, int attempt, long yieldMs) throws Exception {
    return scripts().release(key, owner + ":" + attempt, key, 1000, owner, yieldMs).get();
  }

  @Test
  void aReleaseAnotherOwnerWaitedForMakesTheReleaserYieldUntilTheWaiterTakes() throws Exception {
    assertThat(take("a", 1, true)).isPositive();
    assertThat(take("b", 1, true)).as("b waits").isNegative();
    assertThat(redis.hget(key, "w")).isEqualTo("b");
    assertThat(release("a", 1, 60_000)).isEqualTo(1L);
    long again = take("a", 2, true);
    assertThat(again).as("a yields: busy, with the yield left as its hint")
        .isNegative().isGreaterThanOrEqualTo(-60_000);
    assertThat(take("b", 2, true)).as("the waiter takes").isPositive();
    assertThat(redis.hmget(key, "w", "y", "yu")).allMatch(v -> !v.hasValue());
    assertThat(take("a", 3, true)).as("now a waits").isNegative();
    assertThat(release("b", 2, 60_000)).isEqualTo(1L);
    assertThat(take("b", 3, true)).as("and b yields to a").isNegative();
    assertThat(take("a", 4, true)).isPositive();
  }

  @Test
  void withNobodyWaitingTheReleaserTakesAgainAtOnce() throws Exception {
    assertThat(take("a", 1, true)).isPositive();
    assertThat(take("b", 1, false)).as("a try does not mark the key").isNegative();
    assertThat(release("a", 1, 60_000)).isEqualTo(1L);
    assertThat(take("a", 2, true)).isPositive();
    assertThat(redis.hget(key, "y")).isNull();
  }

  /** The waiter gave up after marking the key: the releaser yields once, for the bound only. */
  @Test
  void aWaiterThatLeftCostsTheReleaserOneBoundedYield() throws Exception {
    assertThat(take("a", 1, true)).isPositive();
    assertThat(take("b", 1, true)).isNegative(); // then b leaves (timed out, died)
    assertThat(release("a", 1, 50)).isEqualTo(1L);
    int busy = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    long got;
    while ((got = take("a", 2 + busy, true)) <= 0 && System.nanoTime() < deadline) {
      busy++;
      Thread.sleep(5);
    }
    assertThat(got).as("taken once the yield has passed").isPositive();
    assertThat(busy).as("it did yield").isPositive();
  }

  /** A holder of the yielding owner's old attempt cannot release the waiter's new hold. */
  @Test
  void aYieldNeverLetsTheYieldingOwnerFreeTheNextHolder() throws Exception {
    assertThat(take("a", 1, true)).isPositive();
    assertThat(take("b", 1, true)).isNegative();
    assertThat(release("a", 1, 60_000)).isEqualTo(1L);
    assertThat(take("b", 2, true)).isPositive();
    assertThat(release("a", 1, 60_000)).as("a's old attempt again").isZero();
    assertThat(redis.hget(key, "o")).isEqualTo("b:2");
  }

  /**
   * Process a always has a successor queued (every hold closes for one) and takes again at
   * once; b's waiter still gets the key, within its lock wait, again and again.
   */
  @Test
  void aProcessThatAlwaysHasASuccessorQueuedNeverStarvesAnotherProcessesWaiter()
      throws Exception {
    RedisLockService a = service("node-a");
    RedisLockService b = service("node-b");
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger aHolds = new AtomicInteger();
    CompletableFuture<Void> hot = CompletableFuture.runAsync(() -> {
      while (!stop.get()) {
        a.acquire("doc", Duration.ofSeconds(10)).closeForSuccessor();
        aHolds.incrementAndGet();
      }
    });
    try {
      for (int i = 0; i < 20; i++) {
        int before = aHolds.get();
        try (LockHandle held = b.acquire("doc", Duration.ofSeconds(5))) {
          assertThat(held.isLost()).isFalse();
        }
        while (aHolds.get() == before && !hot.isDone()) {
          Thread.onSpinWait(); // a had a turn in between, so b waits behind it again
        }
      }
    } finally {
      stop.set(true);
      hot.get(10, TimeUnit.SECONDS);
    }
  }

  private RedisLockService service(String owner) {
    RedisLockService service = RedisLockService.builder().client(client).keyPrefix(prefix)
        .owner(owner).build();
    services.add(service);
    return service;
  }
}
