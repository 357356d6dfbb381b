package io.writeguard.combine;

import static io.writeguard.combine.CombinerWaiter.DONE;
import static io.writeguard.combine.CombinerWaiter.PENDING;
import static io.writeguard.combine.CombinerWaiter.TAKEN;
import static io.writeguard.combine.CombinerWaiter.WITHDRAWN;

import io.writeguard.Ticker;
import io.writeguard.internal.Checks;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * Flat combining per key: callers that want something done for the same key at the same time
 * queue up, and one of them (the <em>leader</em>) runs a caller-supplied {@link Step} for
 * the whole queue at once, so N callers pay one round of the step's cost instead of N.
 *
 * <p>Why it is built this way. Hot keys are where read-modify-write hurts: each caller pays a
 * read and a write (and, under a lock, a hand-off) one at a time. The requests are pure, so
 * the leader can apply all of them to one read and make one write. Nobody is asked to wait for
 * a batch to fill: a caller queues, and if no leader is running for its key it becomes the
 * leader at once and runs a batch of what is queued <em>now</em> (often only itself). Callers
 * that arrive while a leader works queue behind it and are taken by the next batch.
 *
 * <p>The contract:
 *
 * <ul>
 *   <li><b>One step at a time per key.</b> For a given key, at most one step runs at any
 *       moment in this combiner (a step for another key may run in parallel). The step runs on
 *       the leader's thread, which is one of the batch's callers.
 *   <li><b>FIFO, bounded.</b> A batch holds up to {@code maxBatch} requests, in the order they
 *       were submitted (the order of {@link #submit} calls' enqueueing; a request handed back
 *       goes back to the head), and only requests already queued when it is taken: a step
 *       never waits for more. One exception: the leader's own request is always in the batch
 *       it runs, in the last place when the queue ahead of it is longer, so that a leader
 *       runs one batch and its caller's deadline bounds its thread.
 *   <li><b>Every request answered once.</b> The step answers each request with
 *       {@link Batch#succeed} or {@link Batch#fail}; the caller then returns that value or
 *       throws that exception. Or, having done nothing for it, the step hands it back
 *       ({@link Batch#handBack}) to a later batch. If the step throws, every request it left
 *       unanswered (and did not hand back) fails with what it threw; if it returns leaving some
 *       unanswered, they fail with {@link IllegalStateException}.
 *   <li><b>Bounded waits.</b> A request still queued when its {@code maxWait} runs out is
 *       withdrawn ({@link CombineTimeoutException}); one already taken by a batch is never
 *       abandoned, because the step may be writing it: its caller waits for the answer.
 *       Likewise an interrupt withdraws a queued request ({@link CombineInterruptedException})
 *       but only re-asserts the interrupt flag of a caller whose request is being run.
 * </ul>
 *
 * <p>Under a lock ({@code LocalLockService}, {@code MongoLeaseLockService}, a Redis lease), the
 * step takes the lock, reads once, applies every request in order, writes once and releases:
 * one lock hand-off and one read/write per batch. The combiner only batches callers of this
 * process; callers in other processes still meet at the lock.
 *
 * <p>Thread-safe. Per-key state lives only while some caller uses the key.
 *
 * @param <T> what a caller asks for (e.g. a mutator)
 * @param <R> what it gets back
 */
public final class KeyedCombiner<T, R> {
  /** The work a leader does for one batch; see the class comment for its contract. */
  @FunctionalInterface
  public interface Step<T, R> {
    void run(Object key, Batch<T, R> batch);
  }

  private final Step<T, R> step;
  private final int maxBatch;
  private final Ticker ticker;
  private final ConcurrentHashMap<Object, CombinerSlot<T, R>> slots = new ConcurrentHashMap<>();
  /** Told of every park (tests count them); a no-op otherwise, so free on the hot path. */
  private final Runnable onPark;

  private KeyedCombiner(Builder<T, R> b) {
    this.step = b.step;
    this.maxBatch = b.maxBatch;
    this.onPark = b.onPark;
    this.ticker = b.ticker;
  }

  /** A builder for a combiner running {@code step} for each batch. */
  public static <T, R> Builder<T, R> builder(Step<T, R> step) {
    return new Builder<>(step);
  }

  /** The largest batch a step is given. */
  public int maxBatch() {
    return maxBatch;
  }

  /**
   * Queues {@code request} under {@code key} and returns its answer once a batch has run it;
   * the calling thread may be the one that runs the batch.
   *
   * @param maxWait how long the request may stay queued before a batch takes it
   * @throws CombineTimeoutException if no batch took it within {@code maxWait}
   * @throws CombineInterruptedException if interrupted while still queued
   * @throws RuntimeException whatever the step answered it with (or threw)
   */
  public R submit(Object key, T request, Duration maxWait) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(request, "request");
    Checks.notNegative("maxWait", maxWait);
    if (isLeading(key)) {
      throw new IllegalStateException("a step for key " + key + " submitted to its own"
          + " combiner under the same key; it would wait for itself. Run nested work directly");
    }
    long start = ticker.nanoTime();
    CombinerWaiter<T, R> me = new CombinerWaiter<>(request, Thread.currentThread(), start);
    CombinerSlot<T, R> slot = enter(key);
    try {
      slot.add(me);
      await(key, slot, me, saturatedNanos(maxWait));
    } finally {
      leave(key, slot);
    }
    return me.answer();
  }

  /**
   * True when the calling thread is running a step for {@code key} in this combiner: work it
   * does for the same key must not be submitted again (it would wait for itself).
   */
  public boolean isLeading(Object key) {
    CombinerSlot<T, R> slot = slots.get(key);
    return slot != null && slot.leader == Thread.currentThread();
  }

  /** Requests queued for {@code key} that no batch has taken yet (for monitoring and tests). */
  public int waiting(Object key) {
    CombinerSlot<T, R> slot = slots.get(key);
    if (slot == null) {
      return 0;
    }
    return slot.waiting();
  }

  /** Keys that have a slot now (for tests: none once no caller uses any key). */
  int liveKeys() {
    return slots.size();
  }

  /**
   * The key's slot, counting the caller as one of its users. Lock-free: a map compute here
   * would take the key's bin lock twice per call, and the callers a batch answers all leave
   * and come back at once, queueing on that one monitor. A slot whose users fell to 0 is
   * being removed and is never revived; the caller helps remove it and makes a new one.
   */
  private CombinerSlot<T, R> enter(Object key) {
    while (true) {
      CombinerSlot<T, R> slot = slots.get(key);
      if (slot == null) {
        CombinerSlot<T, R> mine = new CombinerSlot<>();
        if (slots.putIfAbsent(key, mine) == null) {
          return mine;
        }
        continue;
      }
      int users = slot.users.get();
      if (users == 0) {
        slots.remove(key, slot); // its last user is removing it: help, then start afresh
      } else if (slot.users.compareAndSet(users, users + 1)) {
        return slot;
      }
    }
  }

  private void leave(Object key, CombinerSlot<T, R> slot) {
    if (slot.users.decrementAndGet() == 0) {
      slots.remove(key, slot);
    }
  }

  /** {@code d} in nanoseconds, a wait too long for a long being as good as forever. */
  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException forever) {
      return Long.MAX_VALUE;
    }
  }

  private void await(Object key, CombinerSlot<T, R> slot, CombinerWaiter<T, R> me, long maxWaitNanos) {
    boolean interrupted = false;
    try {
      while (true) {
        int state = me.state.get();
        if (state == DONE) {
          return;
        }
        if (state == PENDING) {
          // A request handed back looks at its wait and at an interrupt before it leads: it
          // was queued past them, whether the slot is free by the time its thread runs or not.
          boolean withdrawFirst = me.handedBack && (interrupted
              || Thread.currentThread().isInterrupted()
              || maxWaitNanos - (ticker.nanoTime() - me.since) <= 0);
          if (!withdrawFirst && slot.leading.compareAndSet(false, true)) {
            lead(key, slot, me);
            continue;
          }
          long remaining = maxWaitNanos - (ticker.nanoTime() - me.since); // overflow-safe
          if (remaining <= 0 && me.state.compareAndSet(PENDING, WITHDRAWN)) {
            slot.signalNext();
            throw new CombineTimeoutException(key, Duration.ofNanos(ticker.nanoTime() - me.since),
                me.attemptsMade);
          }
          // An interrupt that came while a batch had it counts too: it was handed back.
          if (interrupted || Thread.interrupted()) {
            interrupted = true;
            if (me.state.compareAndSet(PENDING, WITHDRAWN)) {
              slot.signalNext();
              interrupted = false; // the exception below restores the flag itself
              throw new CombineInterruptedException(key);
            }
            continue;
          }
          onPark.run();
          LockSupport.parkNanos(this, Math.max(remaining, 1));
        } else {
          // Taken by a batch: the step may be writing it, so wait for its answer whatever happens.
          if (Thread.interrupted()) {
            interrupted = true;
          }
          onPark.run();
          LockSupport.park(this);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Runs the batch that holds {@code me} (see {@link #take}); another, should it be left open. */
  private void lead(Object key, CombinerSlot<T, R> slot, CombinerWaiter<T, R> me) {
    slot.leader = Thread.currentThread();
    try {
      while (me.state.get() != DONE) {
        List<CombinerWaiter<T, R>> taken = slot.take(me, maxBatch);
        if (taken.isEmpty()) {
          return; // cannot happen while me is queued; never spin
        }
        run(key, slot, taken);
      }
    } finally {
      slot.leader = null;
      slot.leading.set(false);
      slot.signalNext();
    }
  }

  private void run(Object key, CombinerSlot<T, R> slot, List<CombinerWaiter<T, R>> taken) {
    Batch<T, R> batch = new Batch<>(key, slot, taken);
    Throwable thrown = null;
    try {
      step.run(key, batch);
    } catch (Throwable e) { // checked too (Kotlin, @SneakyThrows): every request is answered
      thrown = e;
    }
    batch.requeueHandedBack();
    for (int i = 0; i < taken.size(); i++) {
      if (!batch.isDone(i) && !batch.isHandedBack(i)) {
        Throwable error = thrown != null ? thrown : new IllegalStateException("the combiner's"
            + " step returned without answering request " + (i + 1) + " of " + taken.size()
            + " for key " + key);
        taken.get(i).answer(null, error);
      }
    }
  }

  /**
   * The requests a step is given, in arrival order, and the way it answers each. Used by the
   * step on the leader's thread; answering is also safe from other threads.
   */
  public static final class Batch<T, R> {
    private final Object key;
    private final CombinerSlot<T, R> slot;
    private final List<CombinerWaiter<T, R>> waiters;
    private boolean[] handedBack; // made by the first hand-back: nearly every batch has none

    private Batch(Object key, CombinerSlot<T, R> slot, List<CombinerWaiter<T, R>> waiters) {
      this.key = key;
      this.slot = slot;
      this.waiters = waiters;
    }

    public Object key() {
      return key;
    }

    public int size() {
      return waiters.size();
    }

    /** Request {@code i} (0 is the oldest). */
    public T request(int i) {
      return waiters.get(i).request;
    }

    /** When request {@code i} was submitted, on the combiner's ticker (for deadlines). */
    public long submittedNanos(int i) {
      return waiters.get(i).since;
    }

    /**
     * True when request {@code i} is the calling thread's own: a batch whose only request is
     * the leader's own may end when the leader is interrupted; any other holds callers who did
     * not ask to stop.
     */
    public boolean isCallersOwn(int i) {
      return waiters.get(i).thread == Thread.currentThread();
    }

    /** True once request {@code i} has been answered. */
    public boolean isDone(int i) {
      return waiters.get(i).state.get() == DONE;
    }

    /**
     * Answers request {@code i} with {@code result}; its caller returns it.
     *
     * @throws IllegalStateException if it was already answered
     */
    public void succeed(int i, R result) {
      if (!waiters.get(i).answer(result, null)) {
        throw answeredTwice(i);
      }
    }

    /**
     * Answers request {@code i} with {@code error}; its caller throws it.
     *
     * @throws IllegalStateException if it was already answered
     */
    public void fail(int i, RuntimeException error) {
      Objects.requireNonNull(error, "error");
      if (!waiters.get(i).answer(null, error)) {
        throw answeredTwice(i);
      }
    }

    /**
     * Answers request {@code i} with {@code error}; its caller throws it (an {@code Error} a
     * request's own work raised belongs to that caller alone).
     *
     * @throws IllegalStateException if it was already answered
     */
    public void fail(int i, Error error) {
      Objects.requireNonNull(error, "error");
      if (!waiters.get(i).answer(null, error)) {
        throw answeredTwice(i);
      }
    }

    /**
     * Answers request {@code i} with {@code error}, whatever its type; its caller throws it as
     * it is: a checked exception that a request's own work threw undeclared (Kotlin, Lombok's
     * {@code @SneakyThrows}) belongs to that caller alone, as an {@code Error} does.
     *
     * @throws IllegalStateException if it was already answered
     */
    public void failWith(int i, Throwable error) {
      Objects.requireNonNull(error, "error");
      if (!waiters.get(i).answer(null, error)) {
        throw answeredTwice(i);
      }
    }

    /**
     * Hands request {@code i}, taken by this batch and not answered, back to the queue, for a
     * step that has nothing in flight for it and will do nothing more: its caller waits again
     * as if never taken (its {@code maxWait} still counted from when it queued; past it, or
     * interrupted meanwhile, it is withdrawn), and once this step has returned it is put back
     * at the head of the queue, ahead of what queued since, for the next batch, with
     * {@code attemptsMade} ({@link #attemptsMade}) so that its attempts stay counted. Why: a
     * leader whose own request is answered (its deadline passed) must return then, not work on
     * for the others on its thread; the next batch is then led by another thread. Only from
     * the step, on the leader's thread; the leader's own request cannot be handed back.
     *
     * @throws IllegalStateException if it is the leader's own, answered or handed back already
     */
    public void handBack(int i, int attemptsMade) {
      CombinerWaiter<T, R> w = waiters.get(i);
      if (w.thread == Thread.currentThread()) {
        throw new IllegalStateException("request " + (i + 1) + " of " + waiters.size()
            + " for key " + key + " is the leader's own; it cannot be handed back");
      }
      // Both before the CAS publishes them (to its caller's thread too); harmless if it fails.
      w.handedBack = true;
      w.attemptsMade = attemptsMade;
      if (!w.state.compareAndSet(TAKEN, PENDING)) {
        throw new IllegalStateException("request " + (i + 1) + " of " + waiters.size()
            + " for key " + key + " was answered or handed back already");
      }
      if (handedBack == null) {
        handedBack = new boolean[waiters.size()];
      }
      handedBack[i] = true;
    }

    /**
     * After the step: puts the requests handed back at the head of the queue, in their order,
     * ahead of those that queued since (FIFO), and wakes their callers (to withdraw if their
     * wait ran out; they lead only once this leader has stopped).
     */
    private void requeueHandedBack() {
      if (handedBack == null) {
        return;
      }
      for (int i = waiters.size() - 1; i >= 0; i--) {
        if (handedBack[i]) {
          slot.requeueFirst(waiters.get(i));
        }
      }
      for (int i = 0; i < waiters.size(); i++) {
        if (handedBack[i]) {
          LockSupport.unpark(waiters.get(i).thread);
        }
      }
    }

    /** The attempts made for request {@code i} by the batches that handed it back (0: none). */
    public int attemptsMade(int i) {
      return waiters.get(i).attemptsMade;
    }

    /** True once request {@code i} has been {@linkplain #handBack handed back}. */
    public boolean isHandedBack(int i) {
      return handedBack != null && handedBack[i];
    }

    private IllegalStateException answeredTwice(int i) {
      return new IllegalStateException("request " + (i + 1) + " of " + waiters.size()
          + " for key " + key + (isHandedBack(i) ? " was handed back" : " was already answered"));
    }
  }

  /** Configures a {@link KeyedCombiner}; not thread-safe. */
  public static final class Builder<T, R> {
    private final Step<T, R> step;
    private int maxBatch = 64;
    private Ticker ticker = Ticker.system();
    private Runnable onPark = () -> {};

    private Builder(Step<T, R> step) {
      this.step = Objects.requireNonNull(step, "step");
    }

    /** The most requests one batch holds; at least 1 (1 turns combining off); default 64. */
    public Builder<T, R> maxBatch(int maxBatch) {
      this.maxBatch = Checks.atLeast("maxBatch", maxBatch, 1);
      return this;
    }

    /** The clock of {@code maxWait} and {@link Batch#submittedNanos}. */
    public Builder<T, R> ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** Runs {@code onPark} before each park of a waiting caller (tests count parks). */
    Builder<T, R> onPark(Runnable onPark) {
      this.onPark = Objects.requireNonNull(onPark, "onPark");
      return this;
    }

    public KeyedCombiner<T, R> build() {
      return new KeyedCombiner<>(this);
    }
  }
}
