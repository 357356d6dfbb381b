package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockTimeoutException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A first call whose connect takes longer than its whole wait (a loaded machine, a slow
 * handshake) still gets its one try at the lock, as a wait cut to nothing by a deadline does:
 * seen once in a clean-clone build as "waitTimeout must be positive, was PT0S", a bad-argument
 * error for a caller that passed a good argument.
 */
class LazyLockServiceSlowConnectTest {
  private static final Duration WAIT = Duration.ofMillis(5);

  private static LazyLockService connectingSlowerThan(Duration wait, LocalLockService local) {
    return new LazyLockService("redis", () -> {
      LockSupport.parkNanos(wait.multipliedBy(4).toNanos());
      return local;
    });
  }

  @Test
  void aFreeKeyIsTakenWhenTheConnectUsedTheWholeWait() {
    LocalLockService local = LocalLockService.create();
    LazyLockService lazy = connectingSlowerThan(WAIT, local);

    try (LockHandle handle = lazy.acquire("k", WAIT)) {
      assertThat(handle.key()).isEqualTo("k");
    }
    lazy.close();
  }

  @Test
  void aHeldKeyTimesOutWhenTheConnectUsedTheWholeWait() {
    LocalLockService local = LocalLockService.create();
    LazyLockService lazy = connectingSlowerThan(WAIT, local);

    try (LockHandle held = local.acquire("k", Duration.ofSeconds(1))) {
      assertThatThrownBy(() -> lazy.acquire("k", WAIT))
          .isInstanceOf(LockTimeoutException.class);
    }
    lazy.close();
  }
}
