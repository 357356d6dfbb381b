package io.writeguard.combine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Review of b2c0dfc and 5ebc6f2: with singles and batches, withdrawals by timeout racing the
 * leader's hand-off, every caller is answered or withdrawn exactly once and none is left
 * parked (the timeout bounds it); a step only ever sees requests in order.
 */
@Timeout(120)
class KeyedCombinerNoContendReviewTest {
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 64})
  void everyCallerReturnsUnderRacingArrivalsAndWithdrawals(int maxBatch) throws Exception {
    AtomicInteger running = new AtomicInteger();
    ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
    KeyedCombiner<Integer, Integer> combiner = KeyedCombiner.<Integer, Integer>builder(
        (key, batch) -> {
          if (running.incrementAndGet() != 1) {
            wrong.add("two steps at once for " + key);
          }
          if (batch.size() > maxBatch || batch.size() == 0) {
            wrong.add("batch of " + batch.size());
          }
          for (int i = 0; i < batch.size(); i++) {
            if (i % 5 == 4) {
              Thread.onSpinWait();
            }
            batch.succeed(i, batch.request(i) * 2);
          }
          running.decrementAndGet();
        }).maxBatch(maxBatch).build();
    int threads = 6;
    int calls = 3000;
    AtomicInteger answered = new AtomicInteger();
    AtomicInteger withdrawn = new AtomicInteger();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> all = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int seed = t;
      Thread th = new Thread(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          return;
        }
        for (int i = 0; i < calls; i++) {
          Duration wait = (i + seed) % 7 == 0 ? Duration.ZERO : Duration.ofSeconds(30);
          try {
            int got = combiner.submit("k", i, wait);
            if (got != i * 2) {
              wrong.add("answer " + got + " for " + i);
            }
            answered.incrementAndGet();
          } catch (CombineTimeoutException e) {
            withdrawn.incrementAndGet();
          }
        }
      });
      all.add(th);
      th.start();
    }
    go.countDown();
    for (Thread th : all) {
      th.join();
    }
    assertThat(wrong).isEmpty();
    assertThat(answered.get() + withdrawn.get()).isEqualTo(threads * calls);
    assertThat(combiner.liveKeys()).isZero();
    assertThat(combiner.waiting("k")).isZero();
  }

  @Test
  void aStepCannotChangeTheBatchOfOneItIsGiven() {
    KeyedCombiner<String, String> combiner = KeyedCombiner.<String, String>builder(
        (key, batch) -> batch.succeed(0, batch.request(0) + batch.size())).build();
    assertThat(combiner.submit("k", "x", Duration.ofSeconds(5))).isEqualTo("x1");
  }
}
