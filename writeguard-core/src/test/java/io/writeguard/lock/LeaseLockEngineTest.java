package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.FakeTime;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The lease-lock engine over an in-memory store: its per-key maps stay bounded under a churn of
 * distinct keys, and a take whose reply was lost does not block the key.
 */
class LeaseLockEngineTest {
  private static final int CHURN = 10_000;
  private final FakeTime time = new FakeTime();
  private final MemoryLeaseStore store = new MemoryLeaseStore();
  private LeaseLockEngine engine;

  private LeaseLockEngine engine(String owner, Duration renewInterval) {
    return new LeaseLockEngine(new LeaseLockEngine.Settings("memory", owner, Duration.ofSeconds(30), renewInterval,
        32, Duration.ofMillis(200), 256, time.ticker(), Sleeper.system(), WriteGuardListener.NOOP), store);
  }

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
    }
  }

  /** Regression (issue 8): lost leases stayed in the map after their holder closed (Redis). */
  @Test
  void lostLeasesLeaveNoEntryAfterTheirHoldersCloseUnderAChurnOfDistinctKeys() {
    engine = engine("a", null);
    for (int i = 0; i < CHURN; i++) {
      LockHandle handle = engine.acquire("k" + i, Duration.ofSeconds(5));
      time.advance(Duration.ofSeconds(31)); // ran out on this side's clock
      assertThat(handle.isLost()).isTrue();
      handle.close();
    }
    assertThat(engine.leaseCount()).as("leases kept after " + CHURN + " lost-and-closed handles").isZero();
  }

  /** Regression (issue 8): the yields map grew with every contended release when nothing cleaned it. */
  @Test
  void yieldsStayBoundedUnderAChurnOfDistinctContendedKeys() {
    engine = engine("a", Duration.ofSeconds(10));
    store.askForYields(TimeUnit.HOURS.toNanos(1)); // every release was asked for, none expires
    for (int i = 0; i < CHURN; i++) {
      engine.acquire("k" + i, Duration.ofSeconds(5)).close();
    }
    assertThat(engine.yieldCount()).isPositive().isLessThanOrEqualTo(1024);
    assertThat(engine.leaseCount()).isZero();
  }

  /**
   * Regression (issue 8): a take applied by the store whose reply was lost left our own lease
   * behind, blocking the key for a whole lease. The engine abandons it by attempt id.
   */
  @Test
  void aTakeWhoseReplyWasLostIsAbandonedAndDoesNotBlockTheKey() {
    engine = engine("a", Duration.ofSeconds(10));
    store.loseNextTakeReply();
    assertThatThrownBy(() -> engine.acquire("k", Duration.ofSeconds(5)))
        .isInstanceOf(LockBackendException.class)
        .hasMessageContaining("'k'").hasMessageContaining("attempt 1").hasMessageContaining("reply lost");
    await().atMost(Duration.ofSeconds(10)).until(() -> store.holder("k") == null);
    LeaseLockEngine other = engine("b", Duration.ofSeconds(10));
    try {
      assertThat(other.tryAcquire("k")).as("free for another owner at once").hasValueSatisfying(LockHandle::close);
    } finally {
      other.close();
    }
  }

  /**
   * Regression (review of the engine): attempt ids counted from 1 in every engine, so a second
   * service started with the same owner id (a configured owner shared by two replicas, or a
   * restarted process reusing its name while the old one still holds) sent a take with the
   * same owner and attempt as the holder's, the store took it for a resend, and both held the
   * key. Attempt ids must be unique across engines, not only within one.
   */
  @Test
  void twoEnginesWithTheSameOwnerIdNeverBothHoldAKey() {
    engine = engine("shared-owner", Duration.ofSeconds(10));
    LeaseLockEngine twin = engine("shared-owner", Duration.ofSeconds(10));
    try (LockHandle held = engine.acquire("k", Duration.ofSeconds(5))) {
      assertThat(twin.tryAcquire("k")).as("the key is held by the other engine").isEmpty();
      assertThat(held.isLost()).isFalse();
    } finally {
      twin.close();
    }
  }

  /**
   * Regression (review of the engine): a release interrupted inside the store (the store throws
   * WriteGuardInterruptedException) escaped before the handle gave up its in-process turn, so
   * the key stayed locked in this process for good: every later caller timed out.
   */
  @Test
  void aReleaseInterruptedInTheStoreStillPassesTheLocalTurnOn() {
    AtomicBoolean interruptNext = new AtomicBoolean(true);
    LeaseStore interrupting = new ForwardingStore(store) {
      @Override
      public long release(String key, String owner, String attempt, Grant grant) {
        long yield = super.release(key, owner, attempt, grant);
        if (interruptNext.getAndSet(false)) {
          throw new WriteGuardInterruptedException("releasing (test)", new InterruptedException());
        }
        return yield;
      }
    };
    engine = new LeaseLockEngine(new LeaseLockEngine.Settings("memory", "a", Duration.ofSeconds(30),
        Duration.ofSeconds(10), 1, Duration.ofMillis(200), 256, time.ticker(), Sleeper.system(),
        WriteGuardListener.NOOP), interrupting);
    LockHandle held = engine.acquire("k", Duration.ofSeconds(5));
    assertThatThrownBy(held::close).isInstanceOf(WriteGuardInterruptedException.class);
    assertThat(Thread.interrupted()).as("the flag was kept (and is cleared here)").isTrue();
    assertThat(engine.tryAcquire("k")).as("the local turn was passed on").hasValueSatisfying(LockHandle::close);
  }

  /**
   * The pacer (a task that keeps new lease timers from waking the scheduler) changes no timer:
   * with it running, every held lease is still renewed every renewInterval and a released one
   * no more, lease after lease.
   */
  @Test
  void withThePacerEveryHeldLeaseIsStillRenewedAndAReleasedOneNoMore() {
    AtomicInteger renewals = new AtomicInteger();
    LeaseStore counting = new ForwardingStore(store) {
      @Override
      public boolean renew(String key, String owner, String attempt, Grant grant) {
        renewals.incrementAndGet();
        return super.renew(key, owner, attempt, grant);
      }
    };
    engine = new LeaseLockEngine(new LeaseLockEngine.Settings("memory", "a", Duration.ofSeconds(30),
        Duration.ofMillis(100), 32, Duration.ofMillis(200), 256, time.ticker(), Sleeper.system(),
        WriteGuardListener.NOOP), counting);
    for (int lease = 0; lease < 3; lease++) {
      LockHandle held = engine.acquire("k", Duration.ofSeconds(5));
      assertThat(engine.pacing()).as("paced from the first lease on").isTrue();
      int before = renewals.get();
      await().atMost(Duration.ofSeconds(10)).until(() -> renewals.get() >= before + 2);
      assertThat(held.isLost()).isFalse();
      held.close();
      int atRelease = renewals.get();
      sleepMillis(350); // three renewal intervals
      assertThat(renewals.get()).as("renewed after its release").isLessThanOrEqualTo(atRelease + 1);
    }
  }

  /** Timers shorter than 100 ms (test settings) run without a pacer; a lease is lost as before. */
  @Test
  void shortTimersRunWithoutAPacerAndALeaseStillRunsOut() {
    engine = new LeaseLockEngine(new LeaseLockEngine.Settings("memory", "a", Duration.ofMillis(50), null,
        32, Duration.ofMillis(200), 256, Ticker.system(), Sleeper.system(), WriteGuardListener.NOOP), store);
    LockHandle held = engine.acquire("k", Duration.ofSeconds(5));
    assertThat(engine.pacing()).isFalse();
    await().atMost(Duration.ofSeconds(10)).until(held::isLost);
    held.close();
  }

  private static void sleepMillis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
