package io.writeguard.combine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.writeguard.testing.Gates;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link KeyedCombiner.Batch#handBack}: a leader answered before the rest of its batch hands
 * the rest back and returns; each request handed back is run by a later batch, which its own
 * caller's thread (or another waiting one) leads, with the attempts it made; it keeps its
 * bounded wait; the leader's own request and an answered one cannot be handed back.
 *
 * <p>Also what the reviews of the hand-back found: a request handed back after its wait ran
 * out, or after an interrupt, is withdrawn even when it finds the slot free (5758919); requests
 * withdrawn behind a leader are not kept queued, whatever {@code maxBatch} (7ef0d56).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KeyedCombinerHandBackTest {
  private static final String KEY = "k";
  private static final Duration HOUR = Duration.ofHours(1);

  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final AtomicLong now = new AtomicLong(); // the clock of manualClockCombiner
  private final CountDownLatch firstInStep = new CountDownLatch(1);
  private final CountDownLatch firstMayFinish = new CountDownLatch(1);
  private final List<String> steps = new CopyOnWriteArrayList<>();
  private final Map<String, Thread> threads = new ConcurrentHashMap<>();
  private final Map<String, Boolean> interruptedAtEnd = new ConcurrentHashMap<>();
  private volatile Thread holdInPark; // the thread the onPark hook holds
  private final CountDownLatch heldInPark = new CountDownLatch(1);
  private final CountDownLatch parkMayGoOn = new CountDownLatch(1);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  /**
   * A combiner whose first request ("first") is held in its step, so that the requests queued
   * meanwhile form the next batch, in order; {@code step} runs every later batch.
   */
  private KeyedCombiner<String, String> combiner(
      BiConsumer<Thread, KeyedCombiner.Batch<String, String>> step) {
    return builder(step).build();
  }

  /**
   * As {@link #combiner}, with the manual clock {@link #now} (so that "its wait ran out" needs
   * no sleep) and the onPark hook that holds {@link #holdInPark}.
   */
  private KeyedCombiner<String, String> manualClockCombiner(
      BiConsumer<Thread, KeyedCombiner.Batch<String, String>> step) {
    return builder(step).ticker(now::get).onPark(this::onPark).build();
  }

  private KeyedCombiner.Builder<String, String> builder(
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
    });
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

  // Review of 5758919: a request handed back is PENDING again, and await tried to lead
  // before it looked at its wait or at an interrupt that came while it was taken. When its
  // caller's thread ran only after the old leader released the slot (the usual order: the
  // leader returns in microseconds, a woken thread takes longer), it led and its request ran,
  // although its wait ran out or it was interrupted. The interleaving is forced: the onPark
  // hook holds b (taken, woken by the step) until the old leader returned; then b's park
  // returns at once (handBack unparked it) and b finds the slot free.

  @Test
  void aRequestHandedBackAfterItsWaitRanOutIsWithdrawnEvenWhenTheSlotIsFreeByThen()
      throws Exception {
    KeyedCombiner<String, String> combiner = manualClockCombiner((thread, batch) -> {
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
    KeyedCombiner<String, String> combiner = manualClockCombiner((thread, batch) -> {
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

  // Review of 7ef0d56 (take(slot, me): a leader's own request always in its batch). With
  // maxBatch == 1 a leader no longer polled the queue at all: it only removed its own request.
  // Requests withdrawn from the queue (their wait ran out, or an interrupt) are only ever
  // dropped by a poll from the head, so with maxBatch == 1 they stayed in the key's queue for
  // as long as the key was in use: on a key that never goes quiet, every timed-out caller's
  // request (its mutator, its thread) was kept, and every signalNext and waiting() walked past
  // all of them. Before 7ef0d56 (a leader took the head through takeNext) they were dropped by
  // the next batch, as they still are with maxBatch >= 2.

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
          Gates.await(r.release());
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

  /** Entries of any state in the key's queue (private: read through reflection). */
  private static int queued(KeyedCombiner<?, ?> combiner, Object key) throws Exception {
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

  private static void waitUntil(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - end > 0) {
        throw new AssertionError("condition not met in 10 s");
      }
      Thread.sleep(1);
    }
  }
}
