package io.writeguard.combine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Review of 7ef0d56 ({@code take(slot, me)}: a leader's own request always in its batch). With
 * {@code maxBatch == 1} a leader no longer polls the queue at all: it only removes its own
 * request. Requests withdrawn from the queue (their wait ran out, or an interrupt) are only
 * ever dropped by a poll from the head, so with {@code maxBatch == 1} they now stay in the
 * key's queue for as long as the key is in use: on a key that never goes quiet, every
 * timed-out caller's request (its mutator, its thread) is kept, and every {@code signalNext}
 * and {@link KeyedCombiner#waiting} walks past all of them. Before 7ef0d56 (a leader took the
 * head through {@code takeNext}) they were dropped by the next batch, as they still are with
 * {@code maxBatch >= 2}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TakeOwnReviewTest {
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  /** A request; "block" ones wait in the step for the latch given. */
  record Req(String name, CountDownLatch release) {}

  @ParameterizedTest(name = "maxBatch {0}")
  @ValueSource(ints = {1, 2, 3})
  void requestsWithdrawnBehindALeaderAreNotKeptQueuedByTheNextBatches(int maxBatch)
      throws Exception {
    CountDownLatch inA = new CountDownLatch(1);
    CountDownLatch inC = new CountDownLatch(1);
    KeyedCombiner<Req, String> combiner = KeyedCombiner.<Req, String>builder((key, batch) -> {
      for (int i = 0; i < batch.size(); i++) {
        Req r = batch.request(i);
        if (r.name().equals("a")) {
          inA.countDown();
        } else if (r.name().equals("c")) {
          inC.countDown();
        }
        if (r.release() != null) {
          await(r.release());
        }
        batch.succeed(i, r.name());
      }
    }).maxBatch(maxBatch).build();

    CountDownLatch releaseA = new CountDownLatch(1);
    Future<String> a = pool.submit(() -> combiner.submit("k", new Req("a", releaseA),
        Duration.ofSeconds(30)));
    assertThat(inA.await(10, TimeUnit.SECONDS)).isTrue();

    // Behind the running leader, 20 callers give up at once (a zero wait).
    int withdrawn = 20;
    WeakReference<Req> firstWithdrawn = null;
    for (int i = 0; i < withdrawn; i++) {
      Req r = new Req("w" + i, null);
      if (i == 0) {
        firstWithdrawn = new WeakReference<>(r);
      }
      assertThatThrownBy(() -> combiner.submit("k", r, Duration.ZERO))
          .isInstanceOf(CombineTimeoutException.class);
    }
    // c queues behind them (keeping the key in use), then leads once a is done, and blocks.
    CountDownLatch releaseC = new CountDownLatch(1);
    Future<String> c = pool.submit(() -> combiner.submit("k", new Req("c", releaseC),
        Duration.ofSeconds(30)));
    waitUntil(() -> combiner.waiting("k") == 1);
    releaseA.countDown();
    assertThat(a.get(10, TimeUnit.SECONDS)).isEqualTo("a");
    assertThat(inC.await(10, TimeUnit.SECONDS)).isTrue();

    // The key is in use (c leads); a batch has run since the 20 withdrew.
    try {
      assertThat(combiner.waiting("k")).isZero();
      for (int i = 0; i < 50 && firstWithdrawn.get() != null; i++) {
        System.gc();
        Thread.sleep(20);
      }
      assertThat(firstWithdrawn.get()).as("a withdrawn request, still held by the combiner")
          .isNull();
      assertThat(queued(combiner, "k"))
          .as("requests still in key k's queue after a later batch (all 20 were withdrawn)")
          .isZero();
    } finally {
      releaseC.countDown();
    }
    assertThat(c.get(10, TimeUnit.SECONDS)).isEqualTo("c");
    assertThat(combiner.liveKeys()).isZero();
  }

  /** Entries of any state in the key's queue (private: read through reflection). */
  static int queued(KeyedCombiner<?, ?> combiner, Object key) throws Exception {
    Field slots = KeyedCombiner.class.getDeclaredField("slots");
    slots.setAccessible(true);
    Object slot = ((Map<?, ?>) slots.get(combiner)).get(key);
    if (slot == null) {
      return 0;
    }
    Field queue = slot.getClass().getDeclaredField("queue");
    queue.setAccessible(true);
    return ((Collection<?>) queue.get(slot)).size();
  }

  static void await(CountDownLatch latch) {
    try {
      if (!latch.await(20, TimeUnit.SECONDS)) {
        throw new AssertionError("not released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  static void waitUntil(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("condition not met in 10 s");
      }
      Thread.sleep(1);
    }
  }
}
