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
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Review of 7ef0d56 ({@code take(slot, me)}) under load, with small batches (1, 2, 3): more
 * threads than cores on two keys, hand-backs of the others by half the leaders, zero waits
 * that withdraw behind a leader, and callers interrupted before they queue. Every batch holds
 * the leader's own request and at most {@code maxBatch}; each request is run once or withdrawn
 * (never both, never neither); a caller with a long wait is never stranded (a lost wake-up
 * would leave it parked until the join gives up); nothing is left behind afterwards.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class TakeOwnStressReviewTest {

  static final class Req {
    final int id;
    final boolean longWait;
    final AtomicInteger runs = new AtomicInteger();
    final AtomicInteger handBacks = new AtomicInteger();
    volatile boolean withdrawn;

    Req(int id, boolean longWait) {
      this.id = id;
      this.longWait = longWait;
    }
  }

  @ParameterizedTest(name = "maxBatch {0}")
  @ValueSource(ints = {1, 2, 3})
  void everyRequestRunOnceOrWithdrawnAndEveryBatchHoldsItsLeader(int maxBatch)
      throws Exception {
    int threads = 8;
    int each = 1500;
    int keys = 2;
    List<String> violations = new CopyOnWriteArrayList<>();
    Map<Object, AtomicInteger> inStep = new ConcurrentHashMap<>();
    AtomicInteger batches = new AtomicInteger();
    AtomicInteger fullBatches = new AtomicInteger();
    KeyedCombiner<Req, Integer> combiner = KeyedCombiner.<Req, Integer>builder((key, batch) -> {
      AtomicInteger running = inStep.computeIfAbsent(key, k -> new AtomicInteger());
      if (running.incrementAndGet() != 1) {
        violations.add("two steps at once for " + key);
      }
      try {
        batches.incrementAndGet();
        if (batch.size() > maxBatch) {
          violations.add("batch of " + batch.size());
        }
        if (batch.size() == maxBatch) {
          fullBatches.incrementAndGet();
        }
        int own = -1;
        int owns = 0;
        for (int i = 0; i < batch.size(); i++) {
          Req r = batch.request(i);
          if (r.withdrawn) {
            violations.add("request " + r.id + " taken after it was withdrawn");
          }
          if (r.runs.get() != 0) {
            violations.add("request " + r.id + " taken after it was run");
          }
          if (batch.attemptsMade(i) != r.handBacks.get()) {
            violations.add("request " + r.id + " attemptsMade " + batch.attemptsMade(i));
          }
          if (batch.isCallersOwn(i)) {
            own = i;
            owns++;
          }
        }
        if (owns != 1) {
          violations.add("a batch of " + batch.size() + " with " + owns + " of the leader's own");
          for (int i = 0; i < batch.size(); i++) {
            batch.request(i).runs.incrementAndGet();
            batch.succeed(i, batch.request(i).id);
          }
          return;
        }
        Req mine = batch.request(own);
        mine.runs.incrementAndGet();
        batch.succeed(own, mine.id);
        boolean handBack = (mine.id & 1) == 0;
        for (int i = 0; i < batch.size(); i++) {
          if (i != own) {
            Req r = batch.request(i);
            if (handBack) {
              r.handBacks.incrementAndGet();
              batch.handBack(i, r.handBacks.get());
            } else {
              r.runs.incrementAndGet();
              batch.succeed(i, r.id);
            }
          }
        }
        if ((mine.id % 5) == 0) {
          Thread.yield();
        }
      } finally {
        running.decrementAndGet();
      }
    }).maxBatch(maxBatch).build();

    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<List<Object[]>>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        workers.add(pool.submit(() -> {
          Random random = new Random(31L * thread + maxBatch);
          List<Object[]> outcomes = new ArrayList<>();
          for (int i = 0; i < each; i++) {
            int kind = random.nextInt(10);
            Req r = new Req(thread * each + i, kind >= 2);
            String key = "k" + random.nextInt(keys);
            Duration wait = kind == 0 ? Duration.ZERO : Duration.ofMinutes(10);
            if (kind == 1) {
              Thread.currentThread().interrupt();
            }
            String outcome;
            try {
              Integer answer = combiner.submit(key, r, wait);
              outcome = answer == r.id ? "answered" : "wrong answer " + answer;
            } catch (CombineTimeoutException e) {
              r.withdrawn = true;
              outcome = "withdrawn";
            } catch (CombineInterruptedException e) {
              r.withdrawn = true;
              outcome = kind == 1 ? "withdrawn" : "interrupted unasked";
            } finally {
              Thread.interrupted();
            }
            outcomes.add(new Object[] {r, outcome});
          }
          return outcomes;
        }));
      }
      List<Object[]> all = new ArrayList<>();
      for (Future<List<Object[]>> w : workers) {
        all.addAll(w.get(120, TimeUnit.SECONDS));
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
          assertThat(r.longWait).as("request %d with a 10 min wait withdrawn", r.id).isFalse();
          assertThat(r.runs.get()).as("request %d withdrawn", r.id).isZero();
          withdrawn++;
        }
      }
      assertThat(answered + withdrawn).isEqualTo(threads * each);
      assertThat(violations).isEmpty();
      for (int k = 0; k < keys; k++) {
        assertThat(combiner.waiting("k" + k)).isZero();
      }
      assertThat(combiner.liveKeys()).isZero();
      System.out.printf("maxBatch %d: %d answered, %d withdrawn, %d batches, %d full%n",
          maxBatch, answered, withdrawn, batches.get(), fullBatches.get());
    } finally {
      pool.shutdownNow();
    }
  }
}
