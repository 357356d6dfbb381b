package io.writeguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;
import io.writeguard.Ticker;
import io.writeguard.lock.LeaseStore;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** How a busy caller of the Redis store waits, over a pub/sub connection that never answers. */
class RedisBusyWaitTest {

  /** A pub/sub connection whose SUBSCRIBE is never confirmed (a stalled server). */
  @SuppressWarnings("unchecked")
  private static StatefulRedisPubSubConnection<String, String> silentPubSub() {
    RedisPubSubAsyncCommands<String, String> async = (RedisPubSubAsyncCommands<String, String>) Proxy.newProxyInstance(
        RedisBusyWaitTest.class.getClassLoader(), new Class<?>[] {RedisPubSubAsyncCommands.class},
        (proxy, method, args) -> method.getName().equals("subscribe")
            ? new AsyncCommand<>(new Command<String, String, Void>(CommandType.SUBSCRIBE, null))
            : null);
    return (StatefulRedisPubSubConnection<String, String>) Proxy.newProxyInstance(
        RedisBusyWaitTest.class.getClassLoader(), new Class<?>[] {StatefulRedisPubSubConnection.class},
        (proxy, method, args) -> method.getName().equals("async") ? async : null);
  }

  /**
   * Regression (review of the engine): the first pause of a busy caller waited for Redis to
   * confirm its subscription for up to {@code commandTimeout}, whatever was left of the
   * caller's wait, so acquire(key, 50ms) could sit for the whole command timeout (5 s by
   * default; an hour here) on a stalled pub/sub connection and then still take the lock.
   */
  @Test
  void theFirstPauseNeverWaitsForTheSubscriptionLongerThanTheCallerMayWait() throws Exception {
    ReleaseWaker waker = new ReleaseWaker(silentPubSub(), Ticker.system());
    RedisLeaseStore store = new RedisLeaseStore(null, waker, "wgwait:", Duration.ofSeconds(30),
        Duration.ofHours(1), Duration.ofSeconds(1));
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      Future<?> paused = caller.submit(() -> {
        try (LeaseStore.BusyWait wait = store.busyWait("k")) {
          wait.pause(1, Long.MAX_VALUE, TimeUnit.MILLISECONDS.toNanos(50));
        }
        return null;
      });
      paused.get(30, TimeUnit.SECONDS); // with the bug: an hour
      assertThat(paused).isDone();
    } finally {
      caller.shutdownNow();
    }
  }
}
