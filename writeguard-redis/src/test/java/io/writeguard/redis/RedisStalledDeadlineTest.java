package io.writeguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.writeguard.deadline.Deadlines;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.testing.StallingProxy;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A Redis that stops answering (a proxy that stops forwarding, connections left open) with a
 * command timeout of 60 s: a lock wait still ends at its wait, or at the caller's deadline if
 * that comes first, as the same {@link LockTimeoutException} a busy lock gets.
 */
class RedisStalledDeadlineTest {
  private static final Duration BOUND = Duration.ofSeconds(1).plus(Deadlines.OUTCOME_GRACE)
      .plusMillis(1500);

  private static RedisLockService throughProxy(StallingProxy proxy) {
    return RedisLockService.builder().uri("redis://127.0.0.1:" + proxy.port())
        .keyPrefix("stalled:").commandTimeout(Duration.ofSeconds(60)).build();
  }

  /**
   * A key of this test alone: a release cut off by the stall leaves its key to the lease, which
   * must not hold up the next test.
   */
  private static String unique(String key) {
    return key + "-" + java.util.UUID.randomUUID();
  }

  private static StallingProxy proxy() {
    URI redis = URI.create(TestRedis.uri());
    return new StallingProxy(redis.getHost(), redis.getPort());
  }

  @Test
  void aLockWaitOnAStalledRedisEndsAtTheWait() {
    try (StallingProxy proxy = proxy(); RedisLockService locks = throughProxy(proxy)) {
      locks.acquire(unique("warm"), Duration.ofSeconds(5)).close(); // connected
      proxy.stall();
      long start = System.nanoTime();
      assertThatThrownBy(() -> locks.acquire(unique("k"), Duration.ofSeconds(1)))
          .isInstanceOf(LockTimeoutException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(BOUND);
      proxy.close(); // ends the stalled connections: closing the service then waits for nothing
    }
  }

  @Test
  void aCallersDeadlineCutsALongerLockWait() {
    try (StallingProxy proxy = proxy(); RedisLockService locks = throughProxy(proxy)) {
      locks.acquire(unique("warm"), Duration.ofSeconds(5)).close();
      proxy.stall();
      long start = System.nanoTime();
      assertThatThrownBy(() -> Deadlines.within(Duration.ofSeconds(1), () -> {
        try (LockHandle held = locks.acquire(unique("k"), Duration.ofSeconds(30))) {
          return held;
        }
      })).isInstanceOf(LockTimeoutException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(BOUND);
      proxy.close(); // ends the stalled connections: closing the service then waits for nothing
    }
  }
}
