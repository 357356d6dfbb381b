package io.writeguard.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Regression: the end of a key's locked period was checked with {@code now >= lockedUntil}.
 * {@code nanoTime} may have any origin; when {@code now + hold} wrapped past
 * {@code Long.MAX_VALUE}, a key that had just turned hot went straight back to optimistic.
 */
class ContentionRouterWrapRegressionTest {

  @Test
  void aHotKeyStaysLockedForItsHoldWhenTheClockIsAboutToWrap() {
    AtomicLong now = new AtomicLong(Long.MAX_VALUE - Duration.ofMillis(500).toNanos());
    Ticker ticker = now::get;
    AdaptivePolicy policy = AdaptivePolicy.builder().minAttempts(10)
        .lockedTime(Duration.ofSeconds(1), Duration.ofSeconds(4)).build();
    ContentionRouter router = new ContentionRouter(policy, ticker);
    for (int i = 0; i < 10; i++) {
      router.recordOptimistic("hot", 3);
    }
    assertThat(router.route("hot")).isEqualTo(Route.LOCKED);
    now.addAndGet(Duration.ofMillis(600).toNanos()); // wraps; 0.4 s of the 1 s hold remain
    assertThat(router.route("hot")).as("still inside the hold").isEqualTo(Route.LOCKED);
    now.addAndGet(Duration.ofMillis(500).toNanos());
    assertThat(router.route("hot")).as("hold over, no contention: back to optimistic")
        .isEqualTo(Route.OPTIMISTIC);
  }
}
