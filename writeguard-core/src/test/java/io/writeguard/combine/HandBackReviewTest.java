package io.writeguard.combine;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Review of 5758919 ({@link KeyedCombiner.Batch#handBack}): a request handed back is PENDING
 * again, and {@code await} tries to lead before it looks at its wait or at an interrupt that
 * came while it was taken. When its caller's thread runs only after the old leader released
 * the slot (the usual order: the leader returns in microseconds, a woken thread takes longer),
 * it leads and its request runs, although its wait ran out or it was interrupted.
 *
 * <p>The interleaving is forced: the onPark hook holds b (taken, woken by the step) until the
 * old leader returned; then b's park returns at once (handBack unparked it) and b finds the
 * slot free. The clock is a manual ticker, so "its wait ran out" needs no sleep.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HandBackReviewTest {
  private static final String KEY = "k";
  private static final Duration HOUR = Duration.ofHours(1);

  private final AtomicLong now = new AtomicLong();
  private final CountDownLatch firstInStep = new CountDownLatch(1);
  private final CountDownLatch firstMayFinish = new CountDownLatch(1);
  private final List<String> steps = new CopyOnWriteArrayList<>();
  private final Map<String, Thread> threads = new ConcurrentHashMap<>();
  private final Map<String, Boolean> interruptedAtEnd = new ConcurrentHashMap<>();
  private volatile Thread holdInPark; // the thread the onPark hook holds
  private final CountDownLatch heldInPark = new CountDownLatch(1);
  private final CountDownLatch parkMayGoOn = new CountDownLatch(1);

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
    }).ticker(now::get).onPark(this::onPark).build();
  }

  /** Holds {@link #holdInPark} before its park, ignoring interrupts; bounded. */
  private void onPark() {
    if (Thread.currentThread() != holdInPark) {
      return;
    }
    holdInPark = null;
    heldInPark.countDown();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (parkMayGoOn.getCount() > 0 && System.nanoTime() < until) {
      Thread.onSpinWait();
      Thread.yield();
    }
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

  /** What b got: its answer, or the simple name of what it threw. */
  private static String outcome(CompletableFuture<String> f) throws Exception {
    try {
      return f.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause().getClass().getSimpleName();
    }
  }

  /** Every later batch: answers its own request, hands the rest back; a lone b is run. */
  private void answerOwnHandBackRest(KeyedCombiner.Batch<String, String> batch) {
    for (int i = 0; i < batch.size(); i++) {
      if (batch.isCallersOwn(i)) {
        batch.succeed(i, batch.request(i) + " ran");
      } else {
        batch.handBack(i, 1);
      }
    }
  }

  @Test
  void aRequestHandedBackAfterItsWaitRanOutIsWithdrawnEvenWhenTheSlotIsFreeByThen()
      throws Exception {
    KeyedCombiner<String, String> combiner = combiner((thread, batch) -> {
      if (batch.size() == 2) { // lead,b
        holdInPark = threads.get("b");
        LockSupport.unpark(threads.get("b")); // b, taken, goes round its loop into onPark
        Gates.await(heldInPark);
        now.addAndGet(Duration.ofSeconds(2).toNanos()); // past b's 1 s wait
      }
      answerOwnHandBackRest(batch);
    });
    CompletableFuture<String> first = submit(combiner, "first", HOUR);
    assertThat(firstInStep.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<String> lead = submit(combiner, "lead", HOUR);
    CompletableFuture<String> b = submit(combiner, "b", Duration.ofSeconds(1));
    firstMayFinish.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
    assertThat(lead.get(10, TimeUnit.SECONDS)).isEqualTo("lead ran");
    threads.get("lead").join(10_000); // the old leader left the slot
    parkMayGoOn.countDown();

    assertThat(outcome(b)).as("b, handed back after its 1 s wait ran out; steps %s", steps)
        .isEqualTo(CombineTimeoutException.class.getSimpleName());
    assertThat(steps).containsExactly("first", "lead,b");
    assertThat(combiner.liveKeys()).isZero();
  }

  @Test
  void aRequestInterruptedWhileTakenThenHandedBackIsWithdrawnEvenWhenTheSlotIsFreeByThen()
      throws Exception {
    KeyedCombiner<String, String> combiner = combiner((thread, batch) -> {
      if (batch.size() == 2) { // lead,b
        holdInPark = threads.get("b");
        threads.get("b").interrupt(); // while b is taken: it only waits for its answer
        Gates.await(heldInPark);
      }
      answerOwnHandBackRest(batch);
    });
    CompletableFuture<String> first = submit(combiner, "first", HOUR);
    assertThat(firstInStep.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<String> lead = submit(combiner, "lead", HOUR);
    CompletableFuture<String> b = submit(combiner, "b", HOUR);
    firstMayFinish.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
    assertThat(lead.get(10, TimeUnit.SECONDS)).isEqualTo("lead ran");
    threads.get("lead").join(10_000);
    parkMayGoOn.countDown();

    assertThat(outcome(b)).as("b, interrupted while taken, then handed back; steps %s", steps)
        .isEqualTo(CombineInterruptedException.class.getSimpleName());
    threads.get("b").join(10_000);
    assertThat(interruptedAtEnd.get("b")).as("b's interrupt kept").isTrue();
    assertThat(steps).containsExactly("first", "lead,b");
    assertThat(combiner.liveKeys()).isZero();
  }
}
