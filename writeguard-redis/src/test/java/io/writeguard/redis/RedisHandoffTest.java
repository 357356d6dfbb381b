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
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Local hand-off ({@code handoffBatch > 1}): what Redis sees, tokens, and exact totals. */
class RedisHandoffTest {
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private static RedisCommands<String, String> redis;

  private final String prefix = "wgtest:" + UUID.randomUUID().toString().substring(0, 8) + ":";
  private final List<RedisLockService> services = new ArrayList<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();

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
  void close() {
    pool.shutdownNow();
    services.forEach(RedisLockService::close);
  }

  private RedisLockService service(int batch) {
    RedisLockService s = RedisLockService.builder().client(client).keyPrefix(prefix)
        .owner("node-" + services.size()).handoffBatch(batch)
        .handoffSlice(Duration.ofSeconds(15)).build();
    services.add(s);
    return s;
  }

  private static void awaitWaiters(RedisLockService s, String key, int n) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (s.localWaiters(key) < n && System.nanoTime() < until) {
      Thread.sleep(5);
    }
    assertThat(s.localWaiters(key)).as("local waiters for " + key).isEqualTo(n);
  }

  private static void awaitGone(String redisKey) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (redis.hget(redisKey, "o") != null && System.nanoTime() < until) {
      Thread.sleep(5);
    }
    assertThat(redis.hget(redisKey, "o")).as(redisKey + " released at Redis").isNull();
  }

  @Test
  void aReleaseWithALocalWaiterHandsTheLeaseOnWithTheNextTokenAndNoRoundTrip() throws Exception {
    RedisLockService locks = service(4);
    LockHandle first = locks.acquire("doc", Duration.ofSeconds(5));
    long t = first.token();
    String holder = redis.hget(prefix + "{doc}", "o");
    assertThat(holder).startsWith("node-0:");
    assertThat(redis.hget(prefix + "{doc}", "t")).as("a block of 4 reserved").isEqualTo(Long.toString(t + 3));

    Future<LockHandle> second = pool.submit(() -> locks.acquire("doc", Duration.ofSeconds(20)));
    awaitWaiters(locks, "doc", 1);
    first.close();
    LockHandle next = second.get(20, TimeUnit.SECONDS);

    assertThat(next.token()).isEqualTo(t + 1);
    assertThat(redis.hget(prefix + "{doc}", "o")).as("same lease, still at Redis").isEqualTo(holder);
    assertThat(redis.hget(prefix + "{doc}", "t")).as("no new block").isEqualTo(Long.toString(t + 3));
    assertThat(first.isReleased()).isTrue();
    assertThat(next.isLost()).isFalse();

    next.close(); // nobody waits: released at Redis
    awaitGone(prefix + "{doc}");
  }

  @Test
  void aSpentBlockIsReleasedAndTheNextHolderTakesANewOne() throws Exception {
    RedisLockService locks = service(2);
    LockHandle a = locks.acquire("doc", Duration.ofSeconds(5));
    long t = a.token();
    Future<LockHandle> b = pool.submit(() -> locks.acquire("doc", Duration.ofSeconds(20)));
    awaitWaiters(locks, "doc", 1);
    a.close();
    LockHandle hb = b.get(20, TimeUnit.SECONDS);
    assertThat(hb.token()).isEqualTo(t + 1);

    Future<LockHandle> c = pool.submit(() -> locks.acquire("doc", Duration.ofSeconds(20)));
    awaitWaiters(locks, "doc", 1);
    hb.close(); // the block of 2 is spent: released at Redis, c takes a new lease
    LockHandle hc = c.get(20, TimeUnit.SECONDS);
    assertThat(hc.token()).isGreaterThan(t + 1);
    assertThat(redis.hget(prefix + "{doc}", "f")).isEqualTo(Long.toString(hc.token()));
    hc.close();
    awaitGone(prefix + "{doc}");
  }

  @Test
  void twoProcessesWithHandoffKeepAnExactTotalAndTokensRiseFromHolderToHolder() throws Exception {
    List<RedisLockService> processes = List.of(service(8), service(8));
    int threadsPer = 4;
    int rounds = 40;
    long[] counter = {0};
    List<Long> tokens = new ArrayList<>();
    CyclicBarrier start = new CyclicBarrier(threadsPer * processes.size());
    List<Future<?>> done = new ArrayList<>();
    for (RedisLockService locks : processes) {
      for (int i = 0; i < threadsPer; i++) {
        done.add(pool.submit(() -> {
          start.await(10, TimeUnit.SECONDS);
          for (int r = 0; r < rounds; r++) {
            try (LockHandle h = locks.acquire("hot", Duration.ofSeconds(30))) {
              tokens.add(h.token()); // inside the lock: in the order holders held it
              long read = counter[0];
              Thread.yield(); // widen the read-change-write window
              counter[0] = read + 1;
            }
          }
          return null;
        }));
      }
    }
    for (Future<?> f : done) {
      f.get(120, TimeUnit.SECONDS);
    }
    // Every worker's Future.get() above orders its writes before these reads.
    assertThat(counter[0]).isEqualTo((long) threadsPer * processes.size() * rounds);
    assertThat(tokens).hasSize(threadsPer * processes.size() * rounds);
    for (int i = 1; i < tokens.size(); i++) {
      assertThat(tokens.get(i)).as("token of holder " + i).isGreaterThan(tokens.get(i - 1));
    }
  }
}
