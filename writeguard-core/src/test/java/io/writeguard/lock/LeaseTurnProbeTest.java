package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.FakeTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Probes of turns ({@link LockHandle#closeForSuccessor()}) that held in review, kept as
 * regression tests: two engines ("processes") on one store never hold a key at once and their
 * tokens rise; a lease the watchdog finds lost while parked is never handed to the successor;
 * closing a handle again, either way, changes nothing.
 */
class LeaseTurnProbeTest {
  private final MemoryLeaseStore store = new MemoryLeaseStore();
  private final List<LeaseLockEngine> engines = new ArrayList<>();

  private LeaseLockEngine engine(String owner, Ticker ticker, Duration renew, LeaseStore over,
      WriteGuardListener listener) {
    LeaseLockEngine engine = new LeaseLockEngine(new LeaseLockEngine.Settings("memory", owner,
        Duration.ofSeconds(30), renew, 4, Duration.ofMillis(20), 256, ticker, Sleeper.system(),
        listener), over);
    engines.add(engine);
    return engine;
  }

  @AfterEach
  void close() {
    engines.forEach(LeaseLockEngine::close);
  }

  /**
   * Two engines, two threads each, every hold closed for a successor or plainly at random
   * (so leases are parked, handed on, let go by the grace check and taken by the other
   * engine): never two holders of the key at once, every token above the one before, every
   * hold done, and at the end no lease left in the store or in either engine.
   */
  @Test
  void twoEnginesOnOneStoreNeverHoldTheKeyAtOnceAndTheirTokensRise() throws Exception {
    LeaseLockEngine a = engine("a", Ticker.system(), Duration.ofSeconds(10), store, WriteGuardListener.NOOP);
    LeaseLockEngine b = engine("b", Ticker.system(), Duration.ofSeconds(10), store, WriteGuardListener.NOOP);
    int perThread = 100;
    AtomicInteger inside = new AtomicInteger();
    long[] last = {0};
    AtomicInteger holds = new AtomicInteger();
    ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    List<CompletableFuture<Void>> threads = new ArrayList<>();
    for (LeaseLockEngine engine : List.of(a, b, a, b)) {
      threads.add(CompletableFuture.runAsync(() -> {
        for (int i = 0; i < perThread; i++) {
          LockHandle held = engine.acquire("k", Duration.ofSeconds(20));
          if (inside.incrementAndGet() != 1) {
            violations.add("two holders at token " + held.token());
          }
          if (held.token() <= last[0]) {
            violations.add("token " + held.token() + " after " + last[0]);
          }
          last[0] = held.token();
          holds.incrementAndGet();
          inside.decrementAndGet();
          if (ThreadLocalRandom.current().nextBoolean()) {
            held.closeForSuccessor();
          } else {
            held.close();
          }
        }
      }, runner()));
    }
    CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    assertThat(violations).isEmpty();
    assertThat(holds.get()).isEqualTo(4 * perThread);
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(store.holder("k")).as("nothing left parked in the store").isNull();
      assertThat(a.leaseCount() + b.leaseCount()).isZero();
    });
  }

  /**
   * The watchdog's renewal of a parked lease is answered "not yours": the successor that then
   * asks never gets a token of that lease; it takes the key afresh, above the lost block.
   */
  @Test
  void aLeaseTheWatchdogFindsLostWhileParkedIsNeverHandedToTheSuccessor() throws Exception {
    FakeTime time = new FakeTime();
    AtomicBoolean refuse = new AtomicBoolean();
    CountDownLatch lost = new CountDownLatch(1);
    LeaseLockEngine engine = engine("a", time.ticker(), Duration.ofMillis(5), new ForwardingStore(store) {
      @Override
      public boolean renew(String key, String owner, String attempt, Grant grant) {
        return !refuse.get() && super.renew(key, owner, attempt, grant);
      }
    }, new WriteGuardListener() {
      @Override
      public void onLeaseLost(String backend, String key, long token) {
        lost.countDown();
      }
    });
    LockHandle first = engine.acquire("k", Duration.ofSeconds(5));
    long top = ((LeaseLockHandle) first).lease.grant.top();
    first.closeForSuccessor();
    refuse.set(true);
    assertThat(lost.await(5, TimeUnit.SECONDS)).as("the watchdog found it lost").isTrue();
    refuse.set(false);
    try (LockHandle next = engine.acquire("k", Duration.ofSeconds(5))) {
      assertThat(next.token()).as("above the lost block").isGreaterThan(top);
      assertThat(next.isLost()).isFalse();
      assertThat(store.grants("k")).isEqualTo(2);
    }
    assertThat(store.holder("k")).isNull();
  }

  /** close, then closeForSuccessor, then both again: one release, nothing parked after it. */
  @Test
  void closingAHandleAgainEitherWayChangesNothing() {
    FakeTime time = new FakeTime();
    LeaseLockEngine engine = engine("a", time.ticker(), Duration.ofSeconds(10), store, WriteGuardListener.NOOP);
    LockHandle first = engine.acquire("k", Duration.ofSeconds(5));
    first.close();
    first.closeForSuccessor();
    assertThat(store.holder("k")).as("the plain close released; the late hint kept nothing").isNull();
    LockHandle second = engine.acquire("k", Duration.ofSeconds(5));
    second.closeForSuccessor();
    second.closeForSuccessor();
    second.close();
    LockHandle third = engine.acquire("k", Duration.ofSeconds(5));
    assertThat(third.token()).as("one token per hold").isEqualTo(second.token() + 1);
    assertThat(store.grants("k")).isEqualTo(2);
    third.close();
    assertThat(store.holder("k")).isNull();
  }

  private static java.util.concurrent.Executor runner() {
    return command -> new Thread(command, "turn-probe").start();
  }
}
