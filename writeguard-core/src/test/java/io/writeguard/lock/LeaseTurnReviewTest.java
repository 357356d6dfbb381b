package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.FakeTime;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Review of turns ({@link LockHandle#closeForSuccessor()}) with forced interleavings: a lease
 * kept for a successor must never outlive the service or a loss found while it is parked.
 */
class LeaseTurnReviewTest {
  private final FakeTime time = new FakeTime();
  /** Runs once, on the next read (after {@code readsToSkip}) of the ticker by the thread that armed it. */
  private final AtomicReference<Runnable> onNextRead = new AtomicReference<>();
  private final AtomicReference<Thread> armedBy = new AtomicReference<>();
  private final AtomicInteger readsToSkip = new AtomicInteger();
  private final Ticker ticker = () -> {
    if (Thread.currentThread() == armedBy.get() && readsToSkip.getAndDecrement() <= 0) {
      Runnable hook = onNextRead.getAndSet(null);
      if (hook != null) {
        armedBy.set(null);
        hook.run();
      }
    }
    return time.ticker().nanoTime();
  };
  private final MemoryLeaseStore store = new MemoryLeaseStore();
  private LeaseLockEngine engine;

  private LeaseLockEngine engine() {
    return new LeaseLockEngine(new LeaseLockEngine.Settings("memory", "a", Duration.ofSeconds(30),
        Duration.ofSeconds(10), 4, Duration.ofMillis(20), 256, ticker, Sleeper.system(),
        WriteGuardListener.NOOP), store);
  }

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
    }
  }

  /**
   * A hold still open when its service is closed, then closed for a successor (a group-commit
   * batch ending during shutdown): nobody is left to take the kept lease or to check it, so it
   * must be released at once, not left to block every other process for a whole lease.
   */
  @Test
  void aHoldClosedForASuccessorAfterTheServiceClosedReleasesItsLease() {
    engine = engine();
    LockHandle held = engine.acquire("k", Duration.ofSeconds(5));
    engine.close();
    held.closeForSuccessor();
    assertThat(store.holder("k")).as("released in the store").isNull();
    assertThat(engine.leaseCount()).isZero();
  }

  /**
   * The service is closed while a hold is being parked for a successor: after the holder
   * decided to keep the lease (its third ticker read stamps the parking), before it gave its
   * local turn up, so close() finds the turn held and leaves the lease; the holder must then
   * release it itself, as nothing else will.
   */
  @Test
  void aServiceClosedWhileAHoldParksItsLeaseLeavesNothingParked() {
    engine = engine();
    LockHandle held = engine.acquire("k", Duration.ofSeconds(5));
    readsToSkip.set(2); // the slice check, the lease left, then the parking's stamp
    onNextRead.set(engine::close);
    armedBy.set(Thread.currentThread());
    held.closeForSuccessor();
    assertThat(onNextRead.get()).as("closed inside the parking").isNull();
    assertThat(store.holder("k")).as("released in the store").isNull();
    assertThat(engine.leaseCount()).isZero();
  }

  /**
   * The watchdog finds the lease lost while its holder is parking it for a successor: after
   * the holder judged it usable, before it gave its local turn up. The loss's own clean-up
   * found that turn held and left the lease to the holder ({@code releaseParked}); here the
   * loss is set at that instant. No successor comes: the grace check must forget the lease and
   * free the key if the store still has it as ours, as for a lease lost under a holder.
   */
  @Test
  void aLeaseLostWhileParkedForASuccessorThatNeverComesIsForgottenAndFreed() {
    engine = engine();
    LeaseLockHandle held = (LeaseLockHandle) engine.acquire("k", Duration.ofSeconds(5));
    onNextRead.set(() -> held.lease.lost.set(true));
    armedBy.set(Thread.currentThread());
    held.closeForSuccessor();
    assertThat(onNextRead.get()).as("the loss was forced inside the release").isNull();
    time.advance(LeaseLockEngine.SUCCESSOR_GRACE);
    await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> {
      assertThat(engine.leaseCount()).as("the lost lease forgotten").isZero();
      assertThat(store.holder("k")).as("freed in the store").isNull();
    });
  }

  /**
   * {@code UnderLock.run}'s successor hint is caller code run after the work: if it throws, the
   * lock must still be released (plainly: no successor is known) and the work's result stand,
   * or the key's local turn and lease are held for ever and every later caller hangs.
   */
  @Test
  void aSuccessorHintThatThrowsStillReleasesTheLockAndTheWorkStands() {
    engine = engine();
    LockHandle held = engine.acquire("k", Duration.ofSeconds(5));
    String result = UnderLock.run(held, () -> "done", () -> {
      throw new IllegalStateException("hint failed (test)");
    });
    assertThat(result).isEqualTo("done");
    assertThat(held.isReleased()).isTrue();
    assertThat(store.holder("k")).as("released plainly").isNull();
  }
}
