package io.writeguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.FakeTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Redis-specific behaviour beyond the shared contract: what is stored, how waiters are woken
 * (release message, holder's expiry, fallback re-check), script reloading, and failures.
 * "Would otherwise wait" bounds below are far apart (seconds against a 60 s fallback), so they
 * test which wake-up fired, not speed.
 */
class RedisLockBehaviourTest {
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private static RedisCommands<String, String> redis;

  private final String prefix = "wgtest:" + UUID.randomUUID().toString().substring(0, 8) + ":";
  private final List<RedisLockService> services = new ArrayList<>();

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

  private RedisLockService.Builder builder() {
    return RedisLockService.builder().client(client).keyPrefix(prefix);
  }

  private RedisLockService service(RedisLockService.Builder builder) {
    RedisLockService service = builder.build();
    services.add(service);
    return service;
  }

  @Test
  void storesHolderAttemptAndTokensInTheKeysHashWithTheLeaseAndKeepsTheCountAMomentAfterRelease() {
    RedisLockService locks = service(builder().owner("node-a").lease(Duration.ofSeconds(20)).handoffBatch(8));
    try (LockHandle handle = locks.acquire("doc-1", Duration.ofSeconds(5))) {
      assertThat(redis.hget(prefix + "{doc-1}", "o")).startsWith("node-a:");
      assertThat(redis.hget(prefix + "{doc-1}", "f")).isEqualTo(Long.toString(handle.token()));
      assertThat(redis.hget(prefix + "{doc-1}", "t")).isEqualTo(Long.toString(handle.token() + 7));
      assertThat(redis.pttl(prefix + "{doc-1}")).isBetween(1L, 20_000L);
    }
    assertThat(locks.tryAcquire("doc-1")).hasValueSatisfying(LockHandle::close);
    // The release is sent without waiting for it, and this test reads on another connection.
    await().atMost(Duration.ofSeconds(10)).until(() -> redis.hget(prefix + "{doc-1}", "o") == null);
    assertThat(redis.pttl(prefix + "{doc-1}")).as("the freed key keeps its count briefly")
        .isBetween(1L, RedisLeaseStore.KEEP_FREED.toMillis());
  }

  @Test
  void aBusyAttemptDoesNotConsumeATokenAndTokensRiseAcrossServices() {
    RedisLockService a = service(builder());
    RedisLockService b = service(builder());
    LockHandle first = a.acquire("doc", Duration.ofSeconds(5));
    String counter = redis.hget(prefix + "{doc}", "t");
    assertThat(b.tryAcquire("doc")).isEmpty();
    assertThat(redis.hget(prefix + "{doc}", "t")).as("token count after a busy attempt").isEqualTo(counter);
    first.close();
    try (LockHandle second = b.acquire("doc", Duration.ofSeconds(5))) {
      assertThat(second.token()).isGreaterThan(Long.parseLong(counter));
    }
  }

  @Test
  void aWaiterInAnotherProcessIsWokenByTheReleaseMessage() throws Exception {
    // The fallback is a minute and the holder's lease too: only the message can wake it soon.
    RedisLockService holder = service(builder().lease(Duration.ofSeconds(60)).withoutWatchdog());
    RedisLockService waiter = service(builder().fallbackRecheck(Duration.ofSeconds(60)));
    LockHandle held = holder.acquire("doc", Duration.ofSeconds(5));
    CompletableFuture<LockHandle> next = CompletableFuture.supplyAsync(
        () -> waiter.acquire("doc", Duration.ofSeconds(50)));
    awaitSubscribed(waiter);
    held.close();
    LockHandle taken = next.get(20, TimeUnit.SECONDS);
    assertThat(taken.token()).isGreaterThan(held.token());
    taken.close();
  }

  @Test
  void aWaiterWakesWhenTheHoldersLeaseRunsOutThoughExpirySendsNoMessage() throws Exception {
    RedisLockService holder = service(builder().lease(Duration.ofMillis(700)).withoutWatchdog());
    RedisLockService waiter = service(builder().fallbackRecheck(Duration.ofSeconds(60)));
    LockHandle crashed = holder.acquire("doc", Duration.ofSeconds(5)); // never released
    LockHandle taken = CompletableFuture.supplyAsync(() -> waiter.acquire("doc", Duration.ofSeconds(50)))
        .get(20, TimeUnit.SECONDS);
    assertThat(taken.token()).isGreaterThan(crashed.token());
    assertThat(crashed.isLost()).isTrue();
    taken.close();
  }

  @Test
  void theFallbackRecheckFindsALockFreedWithoutAMessage() throws Exception {
    RedisLockService waiter = service(builder().fallbackRecheck(Duration.ofMillis(200)));
    redis.hset(prefix + "{doc}", "o", "someone:1");
    redis.pexpire(prefix + "{doc}", 60_000);
    CompletableFuture<LockHandle> next = CompletableFuture.supplyAsync(
        () -> waiter.acquire("doc", Duration.ofSeconds(50)));
    awaitSubscribed(waiter);
    redis.del(prefix + "{doc}"); // freed behind our back: no release message
    next.get(20, TimeUnit.SECONDS).close();
  }

  @Test
  void scriptsForgottenByTheServerAreSentAgain() {
    RedisLockService locks = service(builder());
    redis.scriptFlush();
    try (LockHandle handle = locks.acquire("doc", Duration.ofSeconds(5))) {
      assertThat(handle.token()).isPositive();
    }
    redis.scriptFlush();
    assertThat(locks.tryAcquire("doc")).hasValueSatisfying(LockHandle::close);
  }

  @Test
  void aLostReleaseOrderIsImpossibleTheNextLocalHolderGetsTheKeyAtOnce() {
    // close() does not wait for the release; the next acquire queues behind it on the connection.
    RedisLockService locks = service(builder().fallbackRecheck(Duration.ofSeconds(60)));
    for (int i = 0; i < 200; i++) {
      locks.acquire("doc", Duration.ofSeconds(5)).close();
      assertThat(locks.tryAcquire("doc")).as("round " + i).hasValueSatisfying(LockHandle::close);
    }
  }

  @Test
  void leaseAccountingFollowsTheInjectedTicker() {
    FakeTime time = new FakeTime();
    RedisLockService locks = service(builder().ticker(time.ticker())
        .lease(Duration.ofSeconds(30)).withoutWatchdog());
    try (LockHandle handle = locks.acquire("doc", Duration.ofSeconds(5))) {
      time.advance(Duration.ofSeconds(29));
      assertThat(handle.isLost()).isFalse();
      time.advance(Duration.ofSeconds(1));
      assertThat(handle.isLost()).as("lease counted from the send, so never later than Redis").isTrue();
    }
  }

  @Test
  void aLostLeaseIsReportedOnceAndGivesTheKeyToTheNextLocalWaiter() throws Exception {
    List<Long> lost = new CopyOnWriteArrayList<>();
    RedisLockService locks = service(builder().lease(Duration.ofMillis(500)).renewInterval(Duration.ofMillis(100))
        .listener(new WriteGuardListener() {
          @Override
          public void onLeaseLost(String backend, String key, long token) {
            lost.add(token);
          }
        }));
    LockHandle held = locks.acquire("doc", Duration.ofSeconds(5));
    redis.hset(prefix + "{doc}", "o", "intruder:1");
    redis.pexpire(prefix + "{doc}", 1_000);
    LockHandle next = CompletableFuture.supplyAsync(() -> locks.acquire("doc", Duration.ofSeconds(20)))
        .get(30, TimeUnit.SECONDS);
    assertThat(held.isLost()).isTrue();
    assertThat(lost).containsExactly(held.token());
    held.close(); // must not free the new holder's lock
    assertThat(redis.hget(prefix + "{doc}", "f")).isEqualTo(Long.toString(next.token()));
    next.close();
  }

  @Test
  void manyThreadsOnFewKeysEndWithEveryKeyFreeAndExactCounts() throws Exception {
    RedisLockService locks = service(builder());
    long[] counts = new long[5];
    List<CompletableFuture<Void>> workers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      workers.add(CompletableFuture.runAsync(() -> {
        for (int i = 0; i < 50; i++) {
          int k = i % 5;
          try (LockHandle handle = locks.acquire("doc-" + k, Duration.ofSeconds(10))) {
            long read = counts[k];
            Thread.yield();
            counts[k] = read + 1;
          }
        }
      }));
    }
    CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    for (int k = 0; k < 5; k++) {
      assertThat(counts[k]).isEqualTo(40);
      assertThat(locks.tryAcquire("doc-" + k)).hasValueSatisfying(LockHandle::close);
    }
  }

  @Test
  void aRedisThatIsGoneIsABackendFailureNotABusyLock() {
    TestRedis.Server server = TestRedis.startPrivate();
    RedisLockService locks;
    try {
      locks = service(RedisLockService.builder().uri(server.uri()).keyPrefix(prefix)
          .commandTimeout(Duration.ofSeconds(2)));
      locks.acquire("doc", Duration.ofSeconds(5)).close();
    } finally {
      server.close();
    }
    assertThatThrownBy(() -> locks.acquire("doc", Duration.ofSeconds(5)))
        .isInstanceOf(LockBackendException.class)
        .hasMessageContaining("'doc'")
        .hasMessageContaining("attempt 1");
    assertThatThrownBy(() -> locks.tryAcquire("doc")).isInstanceOf(LockBackendException.class);
  }

  @Test
  void anUnreachableRedisFailsTheBuildWithABackendError() {
    TestRedis.Server server = TestRedis.startPrivate();
    String uri = server.uri();
    server.close();
    assertThatThrownBy(() -> RedisLockService.builder().uri(uri).build())
        .isInstanceOf(LockBackendException.class)
        .hasMessageContaining("cannot reach Redis");
  }

  @Test
  void aTimeoutNamesKeyTimeoutAndWaiters() {
    RedisLockService locks = service(builder());
    try (LockHandle held = locks.acquire("doc", Duration.ofSeconds(5))) {
      assertThatThrownBy(() -> locks.acquire("doc", Duration.ofMillis(150)))
          .isInstanceOf(LockTimeoutException.class)
          .hasMessageContaining("redis lock 'doc' not acquired within 150ms");
    }
  }

  private static void awaitSubscribed(RedisLockService service) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (service.subscriptions() == 0 && System.nanoTime() < until) {
      Thread.sleep(10);
    }
    assertThat(service.subscriptions()).as("waiter subscribed").isPositive();
    Thread.sleep(100); // the subscription is confirmed before the waiter's second attempt
  }
}
