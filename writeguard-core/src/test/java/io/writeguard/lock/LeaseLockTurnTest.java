package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.writeguard.Sleeper;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.FakeTime;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Turns ({@link LockHandle#closeForSuccessor()}): a lease kept for a caller of this process
 * that is about to ask, within the turn's bounds, and let go when it does not come; with the
 * grace check and the successor forced to meet.
 */
class LeaseLockTurnTest {
  private static final Duration SLICE = Duration.ofMillis(20);
  private static final int BATCH = 4;
  private final FakeTime time = new FakeTime();
  private final MemoryLeaseStore store = new MemoryLeaseStore();
  private LeaseLockEngine engine;

  private LeaseLockEngine engine(LeaseStore over) {
    return new LeaseLockEngine(new LeaseLockEngine.Settings("memory", "a", Duration.ofSeconds(30),
        Duration.ofSeconds(10), BATCH, SLICE, 256, time.ticker(), Sleeper.system(),
        WriteGuardListener.NOOP), over);
  }

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
    }
  }

  @Test
  void aHoldClosedForASuccessorKeepsTheLeaseAndTheNextCallerGetsAHigherTokenWithoutATake() {
    engine = engine(store);
    LockHandle first = engine.acquire("k", Duration.ofSeconds(5));
    first.closeForSuccessor();
    assertThat(store.holder("k")).as("kept in the store for the successor").isEqualTo("a");
    LockHandle next = engine.acquire("k", Duration.ofSeconds(5));
    assertThat(next.token()).isEqualTo(first.token() + 1);
    assertThat(store.grants("k")).as("one take for both holds").isEqualTo(1);
    next.close();
    assertThat(store.holder("k")).as("a plain close with nobody queued releases").isNull();
  }

  @Test
  void theTurnEndsOnceHandoffSliceHasPassedSinceTheTake() {
    engine = engine(store);
    LockHandle first = engine.acquire("k", Duration.ofSeconds(5));
    time.advance(SLICE);
    first.closeForSuccessor();
    assertThat(store.holder("k")).as("turn over: released in the store").isNull();
    LockHandle next = engine.acquire("k", Duration.ofSeconds(5));
    assertThat(store.grants("k")).isEqualTo(2);
    assertThat(next.token()).isGreaterThan(first.token());
    next.close();
  }

  @Test
  void theTurnEndsAfterHandoffBatchHolders() {
    engine = engine(store);
    for (int i = 1; i <= BATCH; i++) {
      engine.acquire("k", Duration.ofSeconds(5)).closeForSuccessor();
      assertThat(store.holder("k")).as("after holder " + i).isEqualTo(i < BATCH ? "a" : null);
    }
    assertThat(store.grants("k")).isEqualTo(1);
  }

  @Test
  void aLeaseKeptForASuccessorThatNeverComesIsReleasedOnceTheGraceHasPassedOnTheTicker()
      throws InterruptedException {
    engine = engine(store);
    engine.acquire("k", Duration.ofSeconds(5)).closeForSuccessor();
    Thread.sleep(5 * LeaseLockEngine.SUCCESSOR_GRACE.toMillis()); // checks ran: no time passed
    assertThat(store.holder("k")).as("within the grace on the ticker").isEqualTo("a");
    time.advance(LeaseLockEngine.SUCCESSOR_GRACE);
    await().atMost(Duration.ofSeconds(5)).until(() -> store.holder("k") == null);
    assertThat(engine.leaseCount()).isZero();
  }

  /**
   * The grace check ends the parked lease while the successor asks: the check holds the key's
   * local turn during the release, so the successor waits and then takes a lease of its own,
   * never a handle on the one being ended.
   */
  @Test
  void aSuccessorArrivingWhileTheGraceCheckReleasesTakesAFreshLease() throws Exception {
    CountDownLatch releasing = new CountDownLatch(1);
    CountDownLatch letRelease = new CountDownLatch(1);
    AtomicBoolean blockRelease = new AtomicBoolean(true);
    engine = engine(new ForwardingStore(store) {
      @Override
      public long release(String key, String owner, String attempt, Grant grant) {
        if (blockRelease.getAndSet(false)) {
          releasing.countDown();
          awaitLatch(letRelease);
        }
        return super.release(key, owner, attempt, grant);
      }
    });
    LockHandle first = engine.acquire("k", Duration.ofSeconds(5));
    first.closeForSuccessor();
    time.advance(LeaseLockEngine.SUCCESSOR_GRACE);
    assertThat(releasing.await(5, TimeUnit.SECONDS)).as("the grace check is releasing").isTrue();
    CompletableFuture<LockHandle> successor =
        CompletableFuture.supplyAsync(() -> engine.acquire("k", Duration.ofSeconds(5)));
    await().atMost(Duration.ofSeconds(5)).until(() -> engine.waiting("k") == 1);
    letRelease.countDown();
    LockHandle next = successor.get(5, TimeUnit.SECONDS);
    assertThat(next.isLost()).isFalse();
    assertThat(store.holder("k")).as("the successor's own lease is in the store").isEqualTo("a");
    assertThat(store.grants("k")).as("taken afresh").isEqualTo(2);
    assertThat(next.token()).isGreaterThan(first.token());
    next.close();
    assertThat(store.holder("k")).isNull();
  }

  /**
   * The successor comes first and still holds when the grace check runs: the check finds the
   * key's local turn taken and leaves the lease to its holder.
   */
  @Test
  void theGraceCheckNeverEndsALeaseASuccessorHolds() throws InterruptedException {
    engine = engine(store);
    LockHandle first = engine.acquire("k", Duration.ofSeconds(5));
    first.closeForSuccessor();
    LockHandle next = engine.acquire("k", Duration.ofSeconds(5));
    time.advance(LeaseLockEngine.SUCCESSOR_GRACE.multipliedBy(2));
    Thread.sleep(5 * LeaseLockEngine.SUCCESSOR_GRACE.toMillis()); // the check ran meanwhile
    assertThat(store.holder("k")).isEqualTo("a");
    assertThat(next.isLost()).isFalse();
    next.closeForSuccessor(); // the ticker passed the slice meanwhile
    assertThat(store.holder("k")).as("slice over at this release").isNull();
  }

  private static void awaitLatch(CountDownLatch latch) {
    try {
      latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
