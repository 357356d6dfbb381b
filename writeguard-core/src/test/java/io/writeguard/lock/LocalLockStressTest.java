package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.testing.Concurrently;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * 16 threads on 4 keys for a bounded time: read-change-write under the lock with exact totals,
 * while random very short timeouts race the hand-offs, some locks are taken with
 * {@code tryAcquire}, and some handles are closed by another thread.
 */
class LocalLockStressTest {
  private static final int THREADS = 16;
  private static final int KEYS = 4;
  private static final Duration RUN_FOR = Duration.ofSeconds(3);

  private final ExecutorService closers = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() throws InterruptedException {
    closers.shutdownNow();
    assertThat(closers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void exactTotalsAndAnEmptyMapAfterTimeoutsRaceHandOffs() throws Exception {
    LocalLockService locks = LocalLockService.create();
    long[] counters = new long[KEYS]; // plain longs: only the lock protects them
    AtomicLongArray increments = new AtomicLongArray(KEYS);
    AtomicIntegerArray active = new AtomicIntegerArray(KEYS);
    AtomicInteger overlaps = new AtomicInteger();
    AtomicLong timeouts = new AtomicLong();
    AtomicLongArray lastToken = new AtomicLongArray(KEYS);
    AtomicInteger tokenRegressions = new AtomicInteger();
    long stopAt = System.nanoTime() + RUN_FOR.toNanos();

    Concurrently.run(THREADS, Duration.ofSeconds(60), thread -> {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      while (System.nanoTime() < stopAt) {
        int k = random.nextInt(KEYS);
        String key = "stress-" + k;
        Optional<LockHandle> taken;
        int mode = random.nextInt(10);
        if (mode < 3) {
          try {
            taken = Optional.of(locks.acquire(key, Duration.ofNanos(random.nextLong(5_000, 2_000_000))));
          } catch (LockTimeoutException e) {
            timeouts.incrementAndGet();
            continue;
          }
        } else if (mode < 4) {
          taken = locks.tryAcquire(key);
        } else {
          taken = Optional.of(locks.acquire(key, Duration.ofSeconds(30)));
        }
        if (taken.isEmpty()) {
          continue;
        }
        LockHandle handle = taken.get();
        if (active.incrementAndGet(k) != 1) {
          overlaps.incrementAndGet();
        }
        if (lastToken.get(k) >= handle.token()) {
          tokenRegressions.incrementAndGet();
        }
        lastToken.set(k, handle.token());
        long read = counters[k];
        if (random.nextBoolean()) {
          Thread.yield();
        }
        counters[k] = read + 1;
        increments.incrementAndGet(k);
        active.decrementAndGet(k);
        if (random.nextInt(8) == 0) {
          CompletableFuture.runAsync(handle::close, closers).get(30, TimeUnit.SECONDS);
        } else {
          handle.close();
        }
      }
    });

    assertThat(overlaps.get()).as("two holders of one key at once").isZero();
    assertThat(tokenRegressions.get()).as("a token not above the previous holder's").isZero();
    for (int k = 0; k < KEYS; k++) {
      // The lock's unlock/lock pair publishes the plain writes; Concurrently's wait for the threads publishes them here.
      assertThat(counters[k]).as("total of key %d", k).isEqualTo(increments.get(k)).isPositive();
    }
    assertThat(timeouts.get()).as("timeouts that raced hand-offs").isPositive();
    assertThat(locks.size()).as("entries left after every holder and waiter left").isZero();
  }
}
