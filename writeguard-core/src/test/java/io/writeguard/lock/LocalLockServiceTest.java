package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.FakeTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LocalLockServiceTest extends InProcessLockContract {

  @Override
  protected LockService create(LeaseConfig config) {
    return LocalLockService.builder().listener(config.listener()).build();
  }

  @Test
  void keysAreComparedByValueNotByIdentity() {
    LocalLockService locks = LocalLockService.create();
    String key = new String(new char[] {'d', 'o', 'c', '1'});
    try (LockHandle held = locks.acquire(key, Duration.ofSeconds(1))) {
      assertThat(locks.tryAcquire(new String("doc1".toCharArray()))).isEmpty();
    }
  }

  @Test
  void waitersGetTheLockInArrivalOrder() throws Exception {
    LocalLockService locks = LocalLockService.create();
    String key = "fifo";
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<Future<?>> futures = new ArrayList<>();
    LockHandle first = locks.acquire(key, Duration.ofSeconds(1));
    for (int i = 0; i < 8; i++) {
      int id = i;
      futures.add(threads.submit(() -> {
        try (LockHandle h = locks.acquire(key, Duration.ofSeconds(30))) {
          order.add(id);
        }
      }));
      await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting(key) == id + 1);
    }
    first.close();
    for (Future<?> f : futures) {
      f.get(30, TimeUnit.SECONDS);
    }
    assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    assertThat(locks.size()).isZero();
  }

  @Test
  void aReleaseHandsTheLockToTheOldestWaiterSoNoNewcomerCanBarge() throws Exception {
    LocalLockService locks = LocalLockService.create();
    String key = "no-barging";
    CountDownLatch finish = new CountDownLatch(1);
    LockHandle holder = locks.acquire(key, Duration.ofSeconds(1));
    Future<Long> waiter = threads.submit(() -> {
      try (LockHandle h = locks.acquire(key, Duration.ofSeconds(30))) {
        finish.await();
        return h.token();
      }
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting(key) == 1);
    holder.close();
    // The waiter owns the lock from the moment of release, whether or not it has woken yet.
    assertThat(locks.tryAcquire(key)).isEmpty();
    finish.countDown();
    assertThat(waiter.get(30, TimeUnit.SECONDS)).isGreaterThan(holder.token());
    assertThat(locks.size()).isZero();
  }

  @Test
  void aWaiterIsWokenByTheReleaseNotByPolling() throws Exception {
    FakeTime time = new FakeTime();
    AtomicLong tickerReads = new AtomicLong();
    LocalLockService locks = LocalLockService.builder()
        .ticker(() -> {
          tickerReads.incrementAndGet();
          return time.ticker().nanoTime();
        })
        .build();
    String key = "woken";
    LockHandle holder = locks.acquire(key, Duration.ofSeconds(1));
    // The fake clock never moves, so a waiter that polled or slept in slices would either spin
    // on the ticker or never notice the release within the test's bound.
    Future<?> waiter = threads.submit(() -> locks.acquire(key, Duration.ofHours(1)).close());
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting(key) == 1);
    long readsWhileQueued = tickerReads.get();
    Thread.sleep(300);
    assertThat(tickerReads.get() - readsWhileQueued).as("ticker reads while parked").isLessThanOrEqualTo(2);
    holder.close();
    waiter.get(10, TimeUnit.SECONDS);
    assertThat(locks.size()).isZero();
  }

  @Test
  void theTimeoutIsMeasuredOnTheTickerAndTheErrorNamesKeyTimeoutAndWaiters() throws Exception {
    FakeTime time = new FakeTime();
    List<Duration> waits = new CopyOnWriteArrayList<>();
    WriteGuardListener listener = new WriteGuardListener() {
      @Override
      public void onLockWait(String backend, String key, Duration waited, boolean acquired) {
        if (!acquired) {
          waits.add(waited);
        }
      }
    };
    LocalLockService locks = LocalLockService.builder().ticker(time.ticker()).listener(listener).build();
    String key = "order-42";
    LockHandle holder = locks.acquire(key, Duration.ofSeconds(1));
    Future<?> patient1 = threads.submit(() -> locks.acquire(key, Duration.ofHours(1)).close());
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting(key) == 1);
    Future<?> impatient = threads.submit(() -> locks.acquire(key, Duration.ofMillis(50)));
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting(key) == 2);
    Future<?> patient2 = threads.submit(() -> locks.acquire(key, Duration.ofHours(1)).close());
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting(key) == 3);

    time.advance(Duration.ofMillis(50));

    assertThatThrownBy(() -> impatient.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(LockTimeoutException.class)
        .hasMessage("local lock 'order-42' not acquired within 50ms (3 waiting in this process)");
    assertThat(waits).containsExactly(Duration.ofMillis(50));
    assertThat(locks.waiting(key)).isEqualTo(2);
    holder.close();
    patient1.get(10, TimeUnit.SECONDS);
    patient2.get(10, TimeUnit.SECONDS);
    assertThat(locks.size()).isZero();
  }

  @Test
  void anInterruptedCallerDoesNotEvenTryAndKeepsItsFlag() {
    LocalLockService locks = LocalLockService.create();
    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> locks.acquire("free", Duration.ofSeconds(1)))
          .isInstanceOf(WriteGuardInterruptedException.class)
          .hasMessageContaining("free");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(locks.size()).isZero();
  }

  @Test
  void anInterruptedWaiterLeavesTheQueueAndTheNextOneGetsTheLock() throws Exception {
    LocalLockService locks = LocalLockService.create();
    String key = "interrupt";
    LockHandle holder = locks.acquire(key, Duration.ofSeconds(1));
    Thread[] first = new Thread[1];
    Future<?> interrupted = threads.submit(() -> {
      first[0] = Thread.currentThread();
      return locks.acquire(key, Duration.ofMinutes(1));
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting(key) == 1);
    Future<Long> second = threads.submit(() -> {
      try (LockHandle h = locks.acquire(key, Duration.ofMinutes(1))) {
        return h.token();
      }
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting(key) == 2);
    first[0].interrupt();
    assertThatThrownBy(() -> interrupted.get(10, TimeUnit.SECONDS))
        .cause().isInstanceOf(WriteGuardInterruptedException.class);
    assertThat(locks.waiting(key)).isEqualTo(1);
    holder.close();
    assertThat(second.get(10, TimeUnit.SECONDS)).isGreaterThan(holder.token());
    assertThat(locks.size()).isZero();
  }

  @Test
  void aMillionDistinctKeysLeaveNothingBehind() {
    LocalLockService locks = LocalLockService.create();
    for (int i = 0; i < 1_000_000; i++) {
      String key = "doc-" + i;
      if (i % 2 == 0) {
        locks.acquire(key, Duration.ofSeconds(1)).close();
      } else {
        locks.tryAcquire(key).orElseThrow().close();
      }
    }
    assertThat(locks.size()).isZero();
  }

  @Test
  void tokensKeepRisingForAKeyWhoseEntryWasDroppedInBetween() {
    LocalLockService locks = LocalLockService.builder().firstToken(1).build();
    long a;
    try (LockHandle h = locks.acquire("k", Duration.ofSeconds(1))) {
      a = h.token();
    }
    locks.acquire("other", Duration.ofSeconds(1)).close();
    assertThat(locks.size()).isZero();
    try (LockHandle h = locks.acquire("k", Duration.ofSeconds(1))) {
      assertThat(a).isEqualTo(1);
      assertThat(h.token()).isEqualTo(3);
    }
  }

  @Test
  void theDefaultFirstTokenIsAboveAnyEarlierRunsTokens() {
    long before = System.currentTimeMillis() << 20;
    try (LockHandle h = LocalLockService.create().acquire("k", Duration.ofSeconds(1))) {
      assertThat(h.token()).isGreaterThanOrEqualTo(before);
    }
  }

  @Test
  void releaseIsReportedWithTokenAndHoldTime() {
    FakeTime time = new FakeTime();
    List<String> events = new CopyOnWriteArrayList<>();
    LocalLockService locks = LocalLockService.builder()
        .ticker(time.ticker())
        .firstToken(7)
        .listener(new WriteGuardListener() {
          @Override
          public void onLockReleased(String backend, String key, long token, Duration held) {
            events.add(backend + " " + key + " " + token + " " + held);
          }
        })
        .build();
    LockHandle h = locks.acquire("doc", Duration.ofSeconds(1));
    time.advance(Duration.ofMillis(25));
    h.close();
    h.close();
    assertThat(events).containsExactly("local doc 7 PT0.025S");
  }

  @Test
  void aThrowingListenerDoesNotBreakTheLock() {
    LocalLockService locks = LocalLockService.builder()
        .listener(new WriteGuardListener() {
          @Override
          public void onLockWait(String backend, String key, Duration waited, boolean acquired) {
            throw new IllegalStateException("listener bug");
          }
        })
        .build();
    locks.acquire("k", Duration.ofSeconds(1)).close();
    assertThat(locks.size()).isZero();
  }

  @Test
  void theBuilderRefusesBadSettingsNamingTheValue() {
    assertThatThrownBy(() -> LocalLockService.builder().maxKeyLength(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("maxKeyLength must be >= 1, was 0");
    assertThatThrownBy(() -> LocalLockService.builder().firstToken(-3))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("firstToken must be >= 1, was -3");
    assertThatThrownBy(() -> LocalLockService.builder().ticker(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("ticker");
    LocalLockService shortKeys = LocalLockService.builder().maxKeyLength(4).build();
    assertThatThrownBy(() -> shortKeys.tryAcquire("abcde"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("key is 5 chars, more than maxKeyLength 4: 'abcde'");
    assertThatThrownBy(() -> shortKeys.acquire(null, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("key must not be blank, was null");
  }

  /**
   * The classic race, replayed exactly: the waiter has read the clock and found its deadline
   * passed, and before it can leave the queue the holder releases and hands the lock to it.
   * The waiter must take the lock it was handed (not throw and leave it held by nobody).
   */
  @Test
  void aHandOffAtTheInstantTheTimeoutFiresGivesTheWaiterTheLock() throws Exception {
    GateTicker ticker = new GateTicker();
    LocalLockService locks = LocalLockService.builder().ticker(ticker).build();
    String key = "race-timeout";
    LockHandle holder = locks.acquire(key, Duration.ofSeconds(1));
    Thread[] waiterThread = new Thread[1];
    Future<LockHandle> waiter = threads.submit(() -> {
      waiterThread[0] = Thread.currentThread();
      return locks.acquire(key, Duration.ofMillis(50));
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting(key) == 1);

    ticker.stopInNextRead(waiterThread[0]);
    ticker.advance(Duration.ofMillis(50)); // the waiter's deadline has passed...
    holder.close(); // ...and in that instant the release hands it the lock
    ticker.open();

    LockHandle got = waiter.get(10, TimeUnit.SECONDS);
    assertThat(got.token()).isGreaterThan(holder.token());
    assertThat(locks.tryAcquire(key)).isEmpty();
    got.close();
    assertThat(locks.size()).isZero();
  }

  /**
   * The same race with an interrupt: the waiter is interrupted while the release hands it the
   * lock. The interrupt wins, so the waiter must pass the lock on to the next in line.
   */
  @Test
  void aHandOffAtTheInstantOfAnInterruptIsPassedOnToTheNextWaiter() throws Exception {
    GateTicker ticker = new GateTicker();
    LocalLockService locks = LocalLockService.builder().ticker(ticker).build();
    String key = "race-interrupt";
    LockHandle holder = locks.acquire(key, Duration.ofSeconds(1));
    Thread[] firstThread = new Thread[1];
    Future<LockHandle> first = threads.submit(() -> {
      firstThread[0] = Thread.currentThread();
      return locks.acquire(key, Duration.ofMinutes(1));
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting(key) == 1);
    Future<Long> second = threads.submit(() -> {
      try (LockHandle h = locks.acquire(key, Duration.ofMinutes(1))) {
        return h.token();
      }
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.waiting(key) == 2);

    ticker.stopInNextRead(firstThread[0]);
    firstThread[0].interrupt();
    holder.close(); // hands the lock to the first waiter, which is about to see its interrupt
    ticker.open();

    assertThatThrownBy(() -> first.get(10, TimeUnit.SECONDS))
        .cause().isInstanceOf(WriteGuardInterruptedException.class);
    assertThat(second.get(10, TimeUnit.SECONDS)).as("second waiter's token").isGreaterThan(holder.token() + 1);
    assertThat(locks.size()).isZero();
  }

  /**
   * The same races at random timings: a holder releases around the instant a waiter's very
   * short timeout fires (or it is interrupted). Whatever wins, the lock must end up free exactly once:
   * never lost (entry left behind, nobody can take it) and never held twice.
   */
  @Test
  void aHandOffRacingATimeoutOrAnInterruptNeverLosesNorDuplicatesTheLock() throws Exception {
    LocalLockService locks = LocalLockService.create();
    String key = "race";
    int rounds = 1_000;
    int acquired = 0;
    int timedOut = 0;
    int interrupted = 0;
    for (int i = 0; i < rounds; i++) {
      LockHandle holder = locks.acquire(key, Duration.ofSeconds(5));
      boolean interrupt = i % 3 == 0;
      Duration timeout = interrupt ? Duration.ofSeconds(5) : Duration.ofNanos(20_000 + (i % 50) * 2_000);
      Thread[] waiterThread = new Thread[1];
      CountDownLatch started = new CountDownLatch(1);
      Future<LockHandle> waiter = threads.submit(() -> {
        waiterThread[0] = Thread.currentThread();
        started.countDown();
        return locks.acquire(key, timeout);
      });
      started.await();
      if (interrupt) {
        while (locks.waiting(key) == 0 && !waiter.isDone()) {
          Thread.onSpinWait();
        }
        waiterThread[0].interrupt();
      } else {
        Thread.yield();
      }
      holder.close();
      try {
        LockHandle got = waiter.get(10, TimeUnit.SECONDS);
        assertThat(locks.tryAcquire(key)).as("held by the waiter").isEmpty();
        got.close();
        acquired++;
      } catch (java.util.concurrent.ExecutionException e) {
        if (e.getCause() instanceof LockTimeoutException) {
          timedOut++;
        } else if (e.getCause() instanceof WriteGuardInterruptedException) {
          interrupted++;
        } else {
          throw e;
        }
      }
      assertThat(locks.size()).as("round %d leaves the key free", i).isZero();
    }
    assertThat(acquired + timedOut + interrupted).isEqualTo(rounds);
  }

  @Test
  void concurrentHoldersOfDifferentKeysProceedInParallel() throws Exception {
    LocalLockService locks = LocalLockService.create();
    CountDownLatch bothHold = new CountDownLatch(2);
    List<Future<?>> futures = new ArrayList<>();
    for (String key : List.of("a", "b")) {
      futures.add(threads.submit(() -> {
        try (LockHandle h = locks.acquire(key, Duration.ofSeconds(5))) {
          bothHold.countDown();
          assertThat(bothHold.await(10, TimeUnit.SECONDS)).isTrue();
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get(20, TimeUnit.SECONDS);
    }
    assertThat(locks.size()).isZero();
  }
}
