package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisConnectionException;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.LockHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Review 19: LazyLockService under interrupts and concurrent first use. */
class LazyLockServiceReview19Test {

  /**
   * What the starter's supplier throws when the connecting thread is interrupted: Lettuce's
   * AbstractRedisClient.getConnection restores the flag and throws a RedisConnectionException
   * caused by the InterruptedException; RedisLockService's constructor catches that
   * RuntimeException and wraps it as a LockBackendException "cannot reach Redis".
   */
  private static LockBackendException interruptedConnect() {
    Thread.currentThread().interrupt();
    RuntimeException lettuce = RedisConnectionException.create(new InterruptedException());
    return new LockBackendException("redis lock service cannot reach Redis: " + lettuce, lettuce);
  }

  @Test
  void anInterruptedConnectIsNotRememberedAsTheStoresFailureForOtherCallers() {
    AtomicInteger connects = new AtomicInteger();
    LazyLockService lazy = new LazyLockService("redis", () -> {
      if (connects.incrementAndGet() == 1) {
        throw interruptedConnect();
      }
      return LocalLockService.create();
    });

    // The interrupted caller's own call fails (whatever it is told)...
    assertThatThrownBy(() -> lazy.acquire("k", Duration.ofSeconds(1)))
        .isInstanceOf(RuntimeException.class);
    assertThat(Thread.interrupted()).as("flag restored (and cleared here)").isTrue();

    // ...but Redis is fine: the next caller, not interrupted, must connect, not be told for a
    // second that the store cannot be reached because someone else was interrupted.
    assertThatCode(() -> lazy.acquire("k", Duration.ofSeconds(1)).close())
        .as("a caller after an interrupted connect, Redis up").doesNotThrowAnyException();
    assertThat(connects).hasValue(2);
    lazy.close();
  }

  @Test
  void aCallerInterruptedWhileConnectingGetsWriteGuardInterruptedExceptionNotABackendFailure() {
    LazyLockService lazy = new LazyLockService("redis", () -> {
      throw interruptedConnect();
    });
    try {
      // LockService.acquire: "@throws WriteGuardInterruptedException if interrupted (flag
      // restored)"; a LockBackendException here becomes DataAccessResourceFailureException
      // "cannot reach Redis" in @LeaseLocked methods, though Redis was never asked.
      assertThatThrownBy(() -> lazy.acquire("k", Duration.ofSeconds(1)))
          .isInstanceOf(WriteGuardInterruptedException.class);
    } finally {
      Thread.interrupted();
      lazy.close();
    }
  }

  @Test
  void tryAcquireNeverWaitsEvenWhileAnotherCallerIsConnecting() throws Exception {
    CountDownLatch connecting = new CountDownLatch(1);
    CountDownLatch answer = new CountDownLatch(1);
    LazyLockService lazy = new LazyLockService("redis", () -> {
      connecting.countDown();
      try {
        answer.await(); // a slow connect: up to the client's connect timeout
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      return LocalLockService.create();
    });
    Thread first = new Thread(() -> {
      try {
        lazy.acquire("a", Duration.ofSeconds(5)).close();
      } catch (RuntimeException ignored) {
        // only its connect matters
      }
    });
    first.start();
    connecting.await();

    AtomicReference<Object> outcome = new AtomicReference<>();
    Thread prober = new Thread(() -> {
      try {
        Optional<LockHandle> h = lazy.tryAcquire("b");
        outcome.set(h);
        h.ifPresent(LockHandle::close);
      } catch (RuntimeException e) {
        outcome.set(e);
      }
    });
    prober.start();
    // The connect is still in progress (answer not counted down): a tryAcquire that does not
    // wait for it ends on its own. Bounded: a prober that waits fails the test after 30 s.
    prober.join(30_000);
    boolean endedWhileConnecting = !prober.isAlive();
    answer.countDown();
    first.join();
    prober.join();
    lazy.close();
    // LockService.tryAcquire: "Takes key only if it is free now; never waits."
    assertThat(endedWhileConnecting).as("tryAcquire waited for another caller's connect")
        .isTrue();
    assertThat(outcome.get()).isInstanceOf(io.writeguard.lock.LockBackendException.class);
  }
}
