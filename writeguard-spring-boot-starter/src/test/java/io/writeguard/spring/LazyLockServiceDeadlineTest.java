package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.deadline.Deadlines;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.LockHandle;
import io.writeguard.testing.Gates;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A caller with a deadline of its own ({@link Deadlines#within}) waits for another caller's
 * connect no longer than that deadline, as it waits for a lock no longer than it: its lock
 * wait may be far longer.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LazyLockServiceDeadlineTest {

  /** A lazy service whose first caller is inside its connect until {@link #connectEnds}. */
  private static final class ConnectUnderWay {
    final CountDownLatch connectMayEnd = new CountDownLatch(1);
    final LazyLockService lazy;
    final CompletableFuture<LockHandle> first;

    ConnectUnderWay() throws InterruptedException {
      CountDownLatch connecting = new CountDownLatch(1);
      LocalLockService local = LocalLockService.create();
      lazy = new LazyLockService("redis", () -> {
        connecting.countDown();
        Gates.await(connectMayEnd);
        return local;
      });
      first = CompletableFuture.supplyAsync(() -> lazy.acquire("a", Duration.ofSeconds(30)));
      assertThat(connecting.await(10, TimeUnit.SECONDS)).isTrue();
    }

    void connectEnds() throws Exception {
      connectMayEnd.countDown();
      first.get(10, TimeUnit.SECONDS).close();
    }
  }

  @Test
  void waitingForAnotherCallersConnectEndsAtTheCallersDeadline() throws Exception {
    ConnectUnderWay connect = new ConnectUnderWay();

    CompletableFuture<Throwable> second = CompletableFuture.supplyAsync(() -> {
      try {
        Deadlines.within(Duration.ofMillis(200),
            () -> connect.lazy.acquire("b", Duration.ofSeconds(30)));
        return null;
      } catch (RuntimeException e) {
        return e;
      }
    });
    try {
      // answered while the connect is still under way: by its own deadline, not its 30 s wait
      assertThat(second.get(10, TimeUnit.SECONDS))
          .isInstanceOf(LockBackendException.class)
          .hasMessageContaining("still connecting");
    } finally {
      connect.connectEnds();
    }
    connect.lazy.close();
  }

  @Test
  void aCallerWithoutADeadlineStillWaitsItsWholeLockWaitForTheConnect() throws Exception {
    ConnectUnderWay connect = new ConnectUnderWay();
    CompletableFuture<LockHandle> second = CompletableFuture.supplyAsync(
        () -> connect.lazy.acquire("b", Duration.ofSeconds(30)));
    Thread.sleep(300); // longer than the other test's deadline: this one is still waiting
    assertThat(second).isNotDone();

    connect.connectEnds();
    second.get(10, TimeUnit.SECONDS).close();
    connect.lazy.close();
  }
}
