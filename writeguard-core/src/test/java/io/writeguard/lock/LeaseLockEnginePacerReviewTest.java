package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Review of the lease engine's pacer (78c6e2e): with it running, many leases taken at once and
 * while it runs are each renewed, leases without a watchdog are still found lost by the expiry
 * check (nobody asking the handle), and close() leaves no thread of the engine behind.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaseLockEnginePacerReviewTest {
  private final MemoryLeaseStore store = new MemoryLeaseStore();
  private LeaseLockEngine engine;

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
    }
  }

  private LeaseLockEngine engine(String backend, Duration lease, Duration renew, LeaseStore s,
      WriteGuardListener listener) {
    return new LeaseLockEngine(new LeaseLockEngine.Settings(backend, "a", lease, renew, 32,
        Duration.ofMillis(200), 256, Ticker.system(), Sleeper.system(), listener), s);
  }

  @Test
  void manyLeasesTakenAtOnceAndWhileThePacerRunsAreEachRenewed() throws Exception {
    Map<String, AtomicInteger> renewals = new ConcurrentHashMap<>();
    LeaseStore counting = new ForwardingStore(store) {
      @Override
      public boolean renew(String key, String owner, String attempt, Grant grant) {
        renewals.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        return super.renew(key, owner, attempt, grant);
      }
    };
    engine = engine("pacerrenew", Duration.ofSeconds(30), Duration.ofMillis(100), counting,
        WriteGuardListener.NOOP);
    List<LockHandle> held = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      held.add(engine.acquire("k" + i, Duration.ofSeconds(5)));
      if (i % 10 == 9) {
        Thread.sleep(130); // later ones taken while the pacer runs, between its runs
      }
    }
    assertThat(engine.pacing()).isTrue();
    await().atMost(Duration.ofSeconds(20)).until(() -> held.stream()
        .allMatch(h -> renewals.getOrDefault(h.key(), new AtomicInteger()).get() >= 3));
    assertThat(held).noneMatch(LockHandle::isLost);
    held.forEach(LockHandle::close);
  }

  @Test
  void withoutAWatchdogThePacedExpiryCheckStillFindsEveryLeaseLost() {
    AtomicInteger lost = new AtomicInteger();
    engine = engine("pacerexpiry", Duration.ofMillis(150), null, store, new WriteGuardListener() {
      @Override
      public void onLeaseLost(String backend, String key, long token) {
        lost.incrementAndGet();
      }
    });
    List<LockHandle> held = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      held.add(engine.acquire("k" + i, Duration.ofSeconds(5)));
    }
    assertThat(engine.pacing()).isTrue();
    // Nobody asks the handles: only the engine's expiry checks can report the losses.
    await().atMost(Duration.ofSeconds(20)).until(() -> lost.get() == 5);
    assertThat(held).allMatch(LockHandle::isLost);
    held.forEach(LockHandle::close);
  }

  @Test
  void closeLeavesNoThreadOfTheEngineWithThePacerAndLeasesHeld() {
    engine = engine("pacerclose", Duration.ofSeconds(30), Duration.ofMillis(100), store,
        WriteGuardListener.NOOP);
    LockHandle held = engine.acquire("held", Duration.ofSeconds(5));
    engine.acquire("released", Duration.ofSeconds(5)).close();
    assertThat(engine.pacing()).isTrue();
    assertThat(engineThreads("pacerclose")).isNotEmpty();
    engine.close();
    await().atMost(Duration.ofSeconds(20)).until(() -> engineThreads("pacerclose").isEmpty());
    held.close();
    assertThat(engineThreads("pacerclose")).isEmpty();
  }

  private static List<Thread> engineThreads(String backend) {
    List<Thread> threads = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("writeguard-" + backend + "-lock-") && t.isAlive()) {
        threads.add(t);
      }
    }
    return threads;
  }
}
