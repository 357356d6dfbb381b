package io.writeguard.combine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Second review of the hand-back (9c87638) on the combiner alone: exact totals under many
 * hand-backs (to the head of the deque, while new callers add at its tail), short waits that
 * withdraw requests, handed back or not, and interrupts of waiting callers.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HandBack2StressReviewTest {

  /** One request: an id, and what became of it (written by the step and by its caller). */
  static final class Req {
    final int id;
    final AtomicInteger runs = new AtomicInteger(); // times a step answered it
    final AtomicInteger handBacks = new AtomicInteger();
    volatile boolean withdrawn;

    Req(int id) {
      this.id = id;
    }
  }

  @Test
  void everyRequestIsAnsweredOrWithdrawnExactlyOnceAcrossHandBacks() throws Exception {
    int threads = 6;
    int each = 1000;
    int keys = 2;
    List<String> violations = new CopyOnWriteArrayList<>();
    Map<Object, AtomicInteger> inStep = new ConcurrentHashMap<>();
    KeyedCombiner<Req, Integer> combiner = KeyedCombiner.<Req, Integer>builder((key, batch) -> {
      AtomicInteger running = inStep.computeIfAbsent(key, k -> new AtomicInteger());
      if (running.incrementAndGet() != 1) {
        violations.add("two steps at once for " + key);
      }
      try {
        int own = -1;
        for (int i = 0; i < batch.size(); i++) {
          Req r = batch.request(i);
          if (r.withdrawn) {
            violations.add("request " + r.id + " taken after it was withdrawn");
          }
          if (batch.attemptsMade(i) != r.handBacks.get()) {
            violations.add("request " + r.id + " attemptsMade " + batch.attemptsMade(i)
                + " after " + r.handBacks.get() + " hand-backs");
          }
          if (batch.isCallersOwn(i)) {
            own = i;
          }
        }
        if (own >= 0) {
          // As the updaters do: the leader's own is answered, and the others handed back
          // (here every other time), nothing done for them.
          Req mine = batch.request(own);
          mine.runs.incrementAndGet();
          batch.succeed(own, mine.id);
          boolean handBack = (mine.id & 1) == 0;
          for (int i = 0; i < batch.size(); i++) {
            if (i == own) {
              continue;
            }
            Req r = batch.request(i);
            if (handBack) {
              r.handBacks.incrementAndGet();
              batch.handBack(i, r.handBacks.get());
            } else {
              r.runs.incrementAndGet();
              batch.succeed(i, r.id);
            }
          }
        } else {
          for (int i = 0; i < batch.size(); i++) {
            batch.request(i).runs.incrementAndGet();
            batch.succeed(i, batch.request(i).id);
          }
        }
        Thread.yield();
      } finally {
        running.decrementAndGet();
      }
    }).maxBatch(3).build();

    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<List<Object[]>>> workers = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        int thread = t;
        workers.add(pool.submit(() -> {
          Random random = new Random(thread);
          List<Object[]> outcomes = new ArrayList<>();
          for (int i = 0; i < each; i++) {
            Req r = new Req(thread * each + i);
            String key = "k" + random.nextInt(keys);
            Duration wait = random.nextInt(4) == 0 ? Duration.ofNanos(random.nextInt(200_000))
                : Duration.ofSeconds(30);
            String outcome;
            try {
              Integer answer = combiner.submit(key, r, wait);
              outcome = answer == r.id ? "answered" : "wrong answer " + answer;
            } catch (CombineTimeoutException e) {
              r.withdrawn = true;
              outcome = e.attemptsMade() == r.handBacks.get() ? "withdrawn"
                  : "withdrawn reporting " + e.attemptsMade() + " of " + r.handBacks.get();
            }
            outcomes.add(new Object[] {r, outcome});
          }
          return outcomes;
        }));
      }
      List<Object[]> all = new ArrayList<>();
      for (Future<List<Object[]>> w : workers) {
        all.addAll(w.get(100, TimeUnit.SECONDS));
      }
      assertThat(all).hasSize(threads * each);
      int answered = 0;
      int withdrawn = 0;
      for (Object[] o : all) {
        Req r = (Req) o[0];
        String outcome = (String) o[1];
        if (outcome.equals("answered")) {
          answered++;
          assertThat(r.runs.get()).as("request %d answered", r.id).isEqualTo(1);
        } else {
          assertThat(outcome).as("request %d", r.id).isEqualTo("withdrawn");
          withdrawn++;
          assertThat(r.runs.get()).as("request %d withdrawn", r.id).isZero();
        }
      }
      assertThat(answered + withdrawn).isEqualTo(threads * each);
      assertThat(violations).isEmpty();
      for (int k = 0; k < keys; k++) {
        assertThat(combiner.waiting("k" + k)).isZero();
      }
      assertThat(combiner.liveKeys()).isZero();
    } finally {
      pool.shutdownNow();
    }
  }
}
