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
import java.util.function.IntToLongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The hand-back under load, on the combiner alone: more threads than cores on two keys, leaders
 * that answer their own request and hand the others back (every other leader), short or zero
 * waits that withdraw requests, handed back or not, and interrupts. Each request is answered
 * exactly once or withdrawn (never both, never neither), with the attempts it made, and
 * nothing is left behind.
 *
 * <p>The tests share one harness: their callers run through {@link #callFromThreads}, their
 * steps through {@link #oneStepAtATime} (which notes two steps of one key at once), and what
 * became of the calls is checked by {@link #checkEachRunOnceOrWithdrawn}. What a step checks
 * and how a caller waits are each test's own.
 */
class KeyedCombinerHandBackStressTest {
  private final List<String> violations = new CopyOnWriteArrayList<>();
  private final Map<Object, AtomicInteger> inStep = new ConcurrentHashMap<>();

  /** One request: an id, and what became of it (written by the step and by its caller). */
  static final class Req {
    final int id;
    final boolean longWait; // a 10 min wait, which must never run out
    final AtomicInteger runs = new AtomicInteger(); // times a step answered it
    final AtomicInteger handBacks = new AtomicInteger();
    volatile boolean withdrawn;

    Req(int id) {
      this(id, false);
    }

    Req(int id, boolean longWait) {
      this.id = id;
      this.longWait = longWait;
    }
  }

  /** What became of one call: "answered", "withdrawn", or what went wrong. */
  record Outcome(Req request, String outcome) {}

  /** One call by a caller thread, of the request {@code id}, with the thread's own numbers. */
  interface Call {
    Outcome make(int id, Random random) throws Exception;
  }

  /**
   * Second review of the hand-back (9c87638): exact totals under many hand-backs (to the head
   * of the deque, while new callers add at its tail), short waits that withdraw requests,
   * handed back or not.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void everyRequestIsAnsweredOrWithdrawnExactlyOnceAcrossHandBacks() throws Exception {
    int threads = 6;
    int each = 1000;
    int keys = 2;
    KeyedCombiner<Req, Integer> combiner = KeyedCombiner.<Req, Integer>builder((key, batch) ->
        oneStepAtATime(key, () -> {
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
            answerOwnAndHandBackOrAnswerTheRest(batch, own);
          } else {
            answerAll(batch);
          }
          Thread.yield();
        })).maxBatch(3).build();

    List<Outcome> all = callFromThreads(threads, each, thread -> thread, 100, (id, random) -> {
      Req r = new Req(id);
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
      return new Outcome(r, outcome);
    });
    checkEachRunOnceOrWithdrawn(combiner, all, threads * each, keys);
  }

  /**
   * Review of 7ef0d56 ({@code take(slot, me)}) under load, with small batches (1, 2, 3): more
   * threads than cores on two keys, hand-backs of the others by half the leaders, zero waits
   * that withdraw behind a leader, and callers interrupted before they queue. Every batch holds
   * the leader's own request and at most {@code maxBatch}; each request is run once or withdrawn
   * (never both, never neither); a caller with a long wait is never stranded (a lost wake-up
   * would leave it parked until the join gives up); nothing is left behind afterwards.
   */
  @ParameterizedTest(name = "maxBatch {0}")
  @ValueSource(ints = {1, 2, 3})
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void everyRequestRunOnceOrWithdrawnAndEveryBatchHoldsItsLeader(int maxBatch)
      throws Exception {
    int threads = 8;
    int each = 1500;
    int keys = 2;
    AtomicInteger batches = new AtomicInteger();
    AtomicInteger fullBatches = new AtomicInteger();
    KeyedCombiner<Req, Integer> combiner = KeyedCombiner.<Req, Integer>builder((key, batch) ->
        oneStepAtATime(key, () -> {
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
            answerAll(batch);
            return;
          }
          Req mine = answerOwnAndHandBackOrAnswerTheRest(batch, own);
          if ((mine.id % 5) == 0) {
            Thread.yield();
          }
        })).maxBatch(maxBatch).build();

    List<Outcome> all = callFromThreads(threads, each, thread -> 31L * thread + maxBatch, 120,
        (id, random) -> {
          int kind = random.nextInt(10);
          Req r = new Req(id, kind >= 2);
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
          return new Outcome(r, outcome);
        });
    int answered = checkEachRunOnceOrWithdrawn(combiner, all, threads * each, keys);
    for (Outcome o : all) {
      Req r = o.request();
      if (!o.outcome().equals("answered")) {
        assertThat(r.longWait).as("request %d with a 10 min wait withdrawn", r.id).isFalse();
      }
    }
    System.out.printf("maxBatch %d: %d answered, %d withdrawn, %d batches, %d full%n",
        maxBatch, answered, threads * each - answered, batches.get(), fullBatches.get());
  }

  /** Runs {@code step}, one batch of {@code key}; notes a violation if another one is running. */
  private void oneStepAtATime(Object key, Runnable step) {
    AtomicInteger running = inStep.computeIfAbsent(key, k -> new AtomicInteger());
    if (running.incrementAndGet() != 1) {
      violations.add("two steps at once for " + key);
    }
    try {
      step.run();
    } finally {
      running.decrementAndGet();
    }
  }

  /**
   * As the updaters do: the leader's own request (at {@code own}) is answered, and the others
   * handed back when its id is even (nothing done for them), answered when it is odd. Returns
   * the leader's own request.
   */
  private static Req answerOwnAndHandBackOrAnswerTheRest(KeyedCombiner.Batch<Req, Integer> batch,
      int own) {
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
    return mine;
  }

  private static void answerAll(KeyedCombiner.Batch<Req, Integer> batch) {
    for (int i = 0; i < batch.size(); i++) {
      batch.request(i).runs.incrementAndGet();
      batch.succeed(i, batch.request(i).id);
    }
  }

  /**
   * Makes {@code each} calls on each of {@code threads} threads (request ids {@code thread *
   * each + i}; thread t's numbers seeded with {@code seeds(t)}) and returns what became of all
   * of them, waiting at most {@code boundSeconds} for each thread.
   */
  private static List<Outcome> callFromThreads(int threads, int each, IntToLongFunction seeds,
      long boundSeconds, Call call) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<List<Outcome>>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        workers.add(pool.submit(() -> {
          Random random = new Random(seeds.applyAsLong(thread));
          List<Outcome> outcomes = new ArrayList<>();
          for (int i = 0; i < each; i++) {
            outcomes.add(call.make(thread * each + i, random));
          }
          return outcomes;
        }));
      }
      List<Outcome> all = new ArrayList<>();
      for (Future<List<Outcome>> w : workers) {
        all.addAll(w.get(boundSeconds, TimeUnit.SECONDS));
      }
      return all;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Each of the {@code calls} was answered and run exactly once, or withdrawn and never run; no
   * step saw a violation; nothing is left queued or live on the {@code keys} keys. Returns how
   * many were answered.
   */
  private int checkEachRunOnceOrWithdrawn(KeyedCombiner<Req, Integer> combiner,
      List<Outcome> all, int calls, int keys) {
    assertThat(all).hasSize(calls);
    int answered = 0;
    int withdrawn = 0;
    for (Outcome o : all) {
      Req r = o.request();
      String outcome = o.outcome();
      if (outcome.equals("answered")) {
        answered++;
        assertThat(r.runs.get()).as("request %d answered", r.id).isEqualTo(1);
      } else {
        assertThat(outcome).as("request %d", r.id).isEqualTo("withdrawn");
        withdrawn++;
        assertThat(r.runs.get()).as("request %d withdrawn", r.id).isZero();
      }
    }
    assertThat(answered + withdrawn).isEqualTo(calls);
    assertThat(violations).isEmpty();
    for (int k = 0; k < keys; k++) {
      assertThat(combiner.waiting("k" + k)).isZero();
    }
    assertThat(combiner.liveKeys()).isZero();
    return answered;
  }
}
