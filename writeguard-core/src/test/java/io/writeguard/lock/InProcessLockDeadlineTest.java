package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.deadline.Deadlines;
import io.writeguard.path.FieldPath;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The in-process locks cut a wait to the caller's own deadline ({@link Deadlines#within}), as
 * the lease locks do: a caller with 200 ms left that asks to wait 30 s for a held key gets
 * its {@link LockTimeoutException} by its deadline, and a caller without one still waits.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InProcessLockDeadlineTest {
  private static final Duration LONG_WAIT = Duration.ofSeconds(30);

  @Test
  void aLocalLockWaitEndsAtTheCallersDeadline() throws Exception {
    LocalLockService locks = LocalLockService.create();
    try (LockHandle held = locks.acquire("k", Duration.ofSeconds(1))) {
      assertThat(onOtherThreadWithin(Duration.ofMillis(200), () -> locks.acquire("k", LONG_WAIT))
          .get(10, TimeUnit.SECONDS))
          .isInstanceOf(LockTimeoutException.class);
    }
  }

  @Test
  void aPathLockWaitEndsAtTheCallersDeadline() throws Exception {
    PathLockService locks = PathLockService.create();
    FieldPath path = FieldPath.of("a");
    try (LockHandle held = locks.acquire("doc", path, Duration.ofSeconds(1))) {
      assertThat(onOtherThreadWithin(Duration.ofMillis(200),
          () -> locks.acquire("doc", path, LONG_WAIT)).get(10, TimeUnit.SECONDS))
          .isInstanceOf(LockTimeoutException.class);
    }
  }

  @Test
  void withoutADeadlineTheWholeWaitIsWaited() throws Exception {
    LocalLockService locks = LocalLockService.create();
    LockHandle held = locks.acquire("k", Duration.ofSeconds(1));
    CompletableFuture<LockHandle> waiting =
        CompletableFuture.supplyAsync(() -> locks.acquire("k", LONG_WAIT));
    Thread.sleep(300); // past the other tests' deadline: still waiting
    assertThat(waiting).isNotDone();
    held.close();
    waiting.get(10, TimeUnit.SECONDS).close();
  }

  // Review of 4310636: the cut wait is measured on the service's ticker, the deadline on the
  // JVM's clock. A service whose ticker is not the JVM's (a test's, stopped) must still end the
  // wait by the caller's deadline, as its comment promises ("or to the calling thread's
  // deadline if that comes first").
  @Test
  void aLocalLockWaitOnAnotherTickerEndsAtTheCallersDeadline() throws Exception {
    LocalLockService locks = LocalLockService.builder().ticker(() -> 0L).build();
    try (LockHandle held = locks.acquire("k", Duration.ofSeconds(1))) {
      assertThat(onOtherThreadWithin(Duration.ofMillis(200), () -> locks.acquire("k", LONG_WAIT))
          .get(10, TimeUnit.SECONDS))
          .isInstanceOf(LockTimeoutException.class);
      assertThat(locks.waiting("k")).as("it left the queue").isZero();
    }
  }

  @Test
  void aPathLockWaitOnAnotherTickerEndsAtTheCallersDeadline() throws Exception {
    PathLockService locks = PathLockService.builder().ticker(() -> 0L).build();
    FieldPath path = FieldPath.of("a");
    try (LockHandle held = locks.acquire("doc", path, Duration.ofSeconds(1))) {
      assertThat(onOtherThreadWithin(Duration.ofMillis(200),
          () -> locks.acquire("doc", path, LONG_WAIT)).get(10, TimeUnit.SECONDS))
          .isInstanceOf(LockTimeoutException.class);
    }
  }

  /** What {@code acquire} threw on another thread with a deadline {@code budget} away. */
  private static CompletableFuture<Throwable> onOtherThreadWithin(Duration budget,
      Supplier<LockHandle> acquire) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        Deadlines.within(budget, acquire).close();
        return null;
      } catch (RuntimeException e) {
        return e;
      }
    });
  }
}
