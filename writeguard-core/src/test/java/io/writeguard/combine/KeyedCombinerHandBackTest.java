package io.writeguard.combine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.writeguard.testing.Gates;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link KeyedCombiner.Batch#handBack}: a leader answered before the rest of its batch hands
 * the rest back and returns; each request handed back is run by a later batch, which its own
 * caller's thread (or another waiting one) leads, with the attempts it made; it keeps its
 * bounded wait; the leader's own request and an answered one cannot be handed back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KeyedCombinerHandBackTest {
  private static final String KEY = "k";
  private static final Duration HOUR = Duration.ofHours(1);

  private final CountDownLatch firstInStep = new CountDownLatch(1);
  private final CountDownLatch firstMayFinish = new CountDownLatch(1);
  private final List<String> steps = new CopyOnWriteArrayList<>();
  private final Map<String, Thread> threads = new ConcurrentHashMap<>();
  private final Map<String, Boolean> interruptedAtEnd = new ConcurrentHashMap<>();

  /**
   * A combiner whose first request ("first") is held in its step, so that the requests queued
   * meanwhile form the next batch, in order; {@code step} runs every later batch.
   */
  private KeyedCombiner<String, String> combiner(
      BiConsumer<Thread, KeyedCombiner.Batch<String, String>> step) {
    return KeyedCombiner.<String, String>builder((key, batch) -> {
      StringBuilder names = new StringBuilder();
      for (int i = 0; i < batch.size(); i++) {
        names.append(i == 0 ? "" : ",").append(batch.request(i));
      }
      steps.add(names.toString());
      if (batch.request(0).equals("first")) {
        firstInStep.countDown();
        Gates.await(firstMayFinish);
        batch.succeed(0, "first");
        return;
      }
      step.accept(Thread.currentThread(), batch);
    }).build();
  }

  private CompletableFuture<String> submit(KeyedCombiner<String, String> combiner,
      String request, Duration maxWait) {
    int before = combiner.waiting(KEY);
    CompletableFuture<String> f = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        String answer = combiner.submit(KEY, request, maxWait);
        interruptedAtEnd.put(request, Thread.currentThread().isInterrupted());
        f.complete(answer);
      } catch (Throwable e) {
        interruptedAtEnd.put(request, Thread.currentThread().isInterrupted());
        f.completeExceptionally(e);
      }
    }, request);
    threads.put(request, t);
    t.setDaemon(true);
    t.start();
    if (!request.equals("first")) {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (combiner.waiting(KEY) != before + 1 && System.nanoTime() < until) {
        Thread.onSpinWait();
      }
      assertThat(combiner.waiting(KEY)).as("%s queued", request).isEqualTo(before + 1);
    }
    return f;
  }

  /** Starts "first" in its step and queues {@code queued} behind it, in order. */
  private List<CompletableFuture<String>> heldThenQueued(KeyedCombiner<String, String> combiner,
      Duration maxWait, String... queued) throws Exception {
    CompletableFuture<String> first = submit(combiner, "first", HOUR);
    assertThat(firstInStep.await(10, TimeUnit.SECONDS)).isTrue();
    List<CompletableFuture<String>> futures = new CopyOnWriteArrayList<>();
    for (String q : queued) {
      futures.add(submit(combiner, q, maxWait));
    }
    firstMayFinish.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
    return futures;
  }

  @Test
  void aRequestHandedBackIsRunByALaterBatchWithTheAttemptsItMade() throws Exception {
    KeyedCombiner<String, String> combiner = combiner((thread, batch) -> {
      for (int i = 0; i < batch.size(); i++) {
        if (batch.isCallersOwn(i)) {
          batch.succeed(i, batch.request(i) + " led after " + batch.attemptsMade(i));
        } else {
          batch.handBack(i, 3);
        }
      }
    });
    List<CompletableFuture<String>> f = heldThenQueued(combiner, HOUR, "lead", "b");

    assertThat(f.get(0).get(10, TimeUnit.SECONDS)).isEqualTo("lead led after 0");
    // b's own thread leads the batch it is handed back to: the leader's thread returned.
    assertThat(f.get(1).get(10, TimeUnit.SECONDS)).isEqualTo("b led after 3");
    assertThat(steps).containsExactly("first", "lead,b", "b");
    assertThat(combiner.liveKeys()).isZero();
  }

  @Test
  void theAttemptsMadeReachTheBatchThatRunsTheRequestNext() throws Exception {
    KeyedCombiner<String, String> combiner = combiner((thread, batch) -> {
      for (int i = 0; i < batch.size(); i++) {
        String r = batch.request(i);
        if (r.equals("lead")) {
          batch.succeed(i, "lead");
        } else if (batch.attemptsMade(i) == 0 && steps.size() == 2) {
          batch.handBack(i, r.equals("b") ? 2 : 5);
        } else {
          batch.succeed(i, r + " after " + batch.attemptsMade(i));
        }
      }
    });
    List<CompletableFuture<String>> f = heldThenQueued(combiner, HOUR, "lead", "b", "c");

    assertThat(f.get(0).get(10, TimeUnit.SECONDS)).isEqualTo("lead");
    assertThat(f.get(1).get(10, TimeUnit.SECONDS)).isEqualTo("b after 2");
    assertThat(f.get(2).get(10, TimeUnit.SECONDS)).isEqualTo("c after 5");
    assertThat(steps).hasSize(3).startsWith("first", "lead,b,c");
    assertThat(steps.get(2)).as("b and c in one batch again").isIn("b,c", "c,b");
  }

  @Test
  void aRequestHandedBackAfterItsWaitRanOutIsWithdrawnAndNeverRunAgain() throws Exception {
    KeyedCombiner<String, String> combiner = combiner((thread, batch) -> {
      sleep(2500); // past b's 1 s wait, counted from when b queued
      for (int i = 0; i < batch.size(); i++) {
        if (batch.isCallersOwn(i)) {
          batch.succeed(i, "lead");
        } else {
          batch.handBack(i, 1);
        }
      }
      // Still leading while b looks again: b finds its wait over and withdraws. (A request
      // that finds nobody leading leads, whatever its wait, as a fresh one does.)
      sleep(1000);
    });
    CompletableFuture<String> first = submit(combiner, "first", HOUR);
    assertThat(firstInStep.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<String> lead = submit(combiner, "lead", HOUR);
    CompletableFuture<String> b = submit(combiner, "b", Duration.ofSeconds(1));
    firstMayFinish.countDown();
    first.get(10, TimeUnit.SECONDS);

    assertThat(lead.get(10, TimeUnit.SECONDS)).isEqualTo("lead");
    assertThatThrownBy(() -> b.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOfSatisfying(CombineTimeoutException.class,
            t -> assertThat(t.attemptsMade()).as("the attempt made before").isEqualTo(1));
    assertThat(steps).containsExactly("first", "lead,b");
    assertThat(combiner.liveKeys()).isZero();
  }

  @Test
  void aRequestInterruptedWhileTakenAndThenHandedBackIsWithdrawnWithItsInterrupt()
      throws Exception {
    KeyedCombiner<String, String> combiner = combiner((thread, batch) -> {
      threads.get("b").interrupt(); // while b is taken: it only waits for its answer
      sleep(200);
      batch.succeed(0, "lead");
      batch.handBack(1, 1);
    });
    List<CompletableFuture<String>> f = heldThenQueued(combiner, HOUR, "lead", "b");

    assertThat(f.get(0).get(10, TimeUnit.SECONDS)).isEqualTo("lead");
    assertThatThrownBy(() -> f.get(1).get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(CombineInterruptedException.class);
    assertThat(interruptedAtEnd.get("b")).as("b's interrupt kept").isTrue();
    assertThat(steps).containsExactly("first", "lead,b");
    assertThat(combiner.liveKeys()).isZero();
  }

  @Test
  void theLeadersOwnAndAnAnsweredRequestCannotBeHandedBack() throws Exception {
    List<String> refusals = new CopyOnWriteArrayList<>();
    KeyedCombiner<String, String> combiner = combiner((thread, batch) -> {
      for (int i = 0; i < batch.size(); i++) {
        if (batch.isCallersOwn(i)) {
          refusals.add(refusal(() -> batch.handBack(0, 1)));
        }
      }
      batch.succeed(1, "b");
      refusals.add(refusal(() -> batch.handBack(1, 1)));
      batch.succeed(0, "lead");
    });
    List<CompletableFuture<String>> f = heldThenQueued(combiner, HOUR, "lead", "b");

    assertThat(f.get(0).get(10, TimeUnit.SECONDS)).isEqualTo("lead");
    assertThat(f.get(1).get(10, TimeUnit.SECONDS)).isEqualTo("b");
    assertThat(refusals).satisfiesExactly(
        r -> assertThat(r).contains("leader's own"),
        r -> assertThat(r).contains("answered or handed back already"));
  }

  private static String refusal(Runnable r) {
    try {
      r.run();
      return "not refused";
    } catch (IllegalStateException e) {
      return e.getMessage();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
