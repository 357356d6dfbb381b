package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A wait too long for a {@code long} of nanoseconds means "wait forever" to every lock service
 * (LockArguments.checkTimeoutNanos). The lazy service must take it on its first call too, when
 * it still has to connect, not only once connected: it failed there with an
 * {@link ArithmeticException} from {@code Duration.toNanos}, a call that works a moment later.
 */
class LazyLockServiceLongWaitTest {
  private static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

  @Test
  void aWaitTooLongForNanosIsTakenOnTheFirstCallAsOnceConnected() {
    LazyLockService lazy = new LazyLockService("redis", LocalLockService::create);

    try (LockHandle first = lazy.acquire("k", FOREVER)) {
      assertThat(first.key()).isEqualTo("k");
    }
    try (LockHandle connected = lazy.acquire("k", FOREVER)) {
      assertThat(connected.key()).isEqualTo("k");
    }
    lazy.close();
  }
}
