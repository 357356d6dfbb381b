package io.writeguard.update;

import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.combine.KeyedCombiner;
import io.writeguard.internal.Deadline;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.update.BatchCallers.Caller;
import io.writeguard.version.VersionPolicy;
import java.time.Duration;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.codecs.Codec;
import org.bson.codecs.configuration.CodecConfigurationException;

/**
 * Group commit: runs a batch of callers' mutators on one document with one read and one write
 * per round. Package-private; {@link VersionedUpdater} and lock holders reach it through
 * {@link VersionedUpdater#updateBatch}.
 *
 * <p>Why it is built this way. Each {@link Round} reads the document once, calls the pending
 * callers' mutators in arrival order and writes once, so the result is what running them one
 * after another would give ({@link Round} says how, {@link RoundFailures} what a failed read
 * or write means). Rounds repeat until every caller ({@link BatchCallers}) is answered: a
 * conflict or a transient error sends the round's callers to a fresh read after a full-jitter
 * backoff (by the batch's own count of retries), each within its own attempts and deadline.
 * Immutable and thread-safe; each {@link #run} confines its state to the calling thread.
 */
final class BatchUpdate {
  // What a round needs (package-private: read by Round and RoundFailures).
  final UpdateLoop loop;
  final Store store;
  final VersionPolicy versions;
  final RetryPolicy retry;
  final WriteGuardListener listener;
  final OperationScope scope;
  final Codec<Document> documentCodec;
  final boolean encodesBsonValues;
  private final Ticker ticker;
  private final Sleeper sleeper;
  private final RandomGenerator random;
  // Set while this thread runs a batch: an update a mutator makes from inside it runs alone,
  // and an interrupt of the leader is set aside until the batch is done.
  private final ThreadLocal<Running> runningHere;

  BatchUpdate(UpdateLoop loop, Store store, VersionPolicy versions, RetryPolicy retry,
      WriteGuardListener listener, Ticker ticker, Sleeper sleeper, RandomGenerator random) {
    this.loop = loop;
    this.store = store;
    this.versions = versions;
    this.retry = retry;
    this.listener = WriteGuardListener.safe(listener);
    this.scope = loop.scope();
    this.ticker = ticker;
    this.sleeper = sleeper;
    this.random = random;
    this.documentCodec = store.codecRegistry().get(Document.class);
    this.encodesBsonValues = canEncode(store);
    this.runningHere = new ThreadLocal<>();
  }

  /**
   * The same batches on another store (a lock holder's, for one batch), sharing the policies,
   * the listener and the nested-update guard.
   */
  BatchUpdate on(Store other) {
    return new BatchUpdate(this, other);
  }

  private BatchUpdate(BatchUpdate from, Store store) {
    this.loop = from.loop.on(store);
    this.store = store;
    this.versions = from.versions;
    this.retry = from.retry;
    this.listener = from.listener;
    this.scope = from.scope;
    this.ticker = from.ticker;
    this.sleeper = from.sleeper;
    this.random = from.random;
    this.documentCodec = from.documentCodec;
    this.encodesBsonValues = from.encodesBsonValues;
    this.runningHere = from.runningHere;
  }

  private static boolean canEncode(Store store) {
    try {
      store.codecRegistry().get(BsonDocument.class);
      return true;
    } catch (CodecConfigurationException e) {
      return false;
    }
  }

  /** Where a batch's requests come from and their answers go. */
  interface Requests {
    int size();

    Mutator mutator(int i);

    boolean returnAfter(int i);

    long submittedNanos(int i);

    /** Request {@code i}'s caller's own deadline, or null when it has none. */
    Deadline deadline(int i);

    /** Whether request {@code i} is the calling thread's own (see {@link #run}). */
    boolean isCallersOwn(int i);

    void succeed(int i, UpdateOutcome outcome);

    /** Answers with {@code error}: what was thrown for it, checked or not. */
    void fail(int i, Throwable error);

    /** The attempts made for request {@code i} by earlier batches that handed it back. */
    int attemptsMade(int i);

    /**
     * Hands request {@code i}, with nothing in flight for it, back to its queue after
     * {@code attemptsMade} attempts, for a later batch ({@link KeyedCombiner.Batch#handBack}).
     */
    void handBack(int i, int attemptsMade);
  }

  /** Fails request {@code i} of {@code batch} with {@code error}, which its caller throws. */
  static void fail(KeyedCombiner.Batch<?, ?> batch, int i, Throwable error) {
    batch.failWith(i, error);
  }

  /**
   * One caller's update as queued in an updater's own combiner, with the deadline of the
   * caller's thread when it queued it (a leader runs it on another thread), and, once a
   * {@link LockedUpdater} batch that waited for the lock for it handed it back, when its lock
   * wait ends: it is one per call, not one per batch. Written and read by the leaders that
   * take it, one at a time (the combiner's queue publishes it).
   */
  static final class Call {
    private final Mutator mutator;
    private final boolean returnAfter;
    private final Deadline deadline;
    private Deadline lockWaitEnd;

    Call(Mutator mutator, boolean returnAfter) {
      this.mutator = mutator;
      this.returnAfter = returnAfter;
      this.deadline = Deadline.current();
    }

    Mutator mutator() {
      return mutator;
    }

    boolean returnAfter() {
      return returnAfter;
    }

    /** The caller's own deadline, or null. */
    Deadline deadline() {
      return deadline;
    }

    /** When its lock wait ends, or null while no batch has waited for the lock for it. */
    Deadline lockWaitEnd() {
      return lockWaitEnd;
    }

    /** Its lock wait ends {@code left} from now, or earlier if it was to end earlier. */
    void lockWaitEndsWithin(Duration left) {
      lockWaitEnd = Deadline.after(left).earlier(lockWaitEnd);
    }

    /** The lock was had for it: a later wait for the lock is a new one. */
    void lockWaitOver() {
      lockWaitEnd = null;
    }
  }

  /**
   * Adapts a combiner's batch of {@link Call}s: those not answered yet (a locked batch answers
   * a caller whose deadline passed while it waited for the lock), in order.
   */
  static Requests ofCalls(KeyedCombiner.Batch<Call, UpdateOutcome> batch) {
    int answered = 0;
    for (int i = 0; i < batch.size(); i++) {
      answered += batch.isDone(i) ? 1 : 0;
    }
    if (answered == 0) {
      return ofOpenCalls(batch, null); // the usual case: nothing to skip, nothing to allocate
    }
    int[] open = new int[batch.size() - answered];
    for (int i = 0, n = 0; i < batch.size(); i++) {
      if (!batch.isDone(i)) {
        open[n++] = i;
      }
    }
    return ofOpenCalls(batch, open);
  }

  /** {@code batch}'s requests {@code open} (all of them when null), as requests 0, 1, ... */
  private static Requests ofOpenCalls(KeyedCombiner.Batch<Call, UpdateOutcome> batch,
      int[] open) {
    return new Requests() {
      private int at(int i) {
        return open == null ? i : open[i];
      }

      public int size() {
        return open == null ? batch.size() : open.length;
      }

      public Mutator mutator(int i) {
        return batch.request(at(i)).mutator();
      }

      public boolean returnAfter(int i) {
        return batch.request(at(i)).returnAfter();
      }

      public Deadline deadline(int i) {
        return batch.request(at(i)).deadline();
      }

      public long submittedNanos(int i) {
        return batch.submittedNanos(at(i));
      }

      public boolean isCallersOwn(int i) {
        return batch.isCallersOwn(at(i));
      }

      public void succeed(int i, UpdateOutcome outcome) {
        batch.succeed(at(i), outcome);
      }

      public void fail(int i, Throwable error) {
        BatchUpdate.fail(batch, at(i), error);
      }

      public int attemptsMade(int i) {
        return batch.attemptsMade(at(i));
      }

      public void handBack(int i, int attemptsMade) {
        batch.handBack(at(i), attemptsMade);
      }
    };
  }

  /** Adapts a combiner's batch whose requests are mutators. */
  static Requests of(KeyedCombiner.Batch<? extends Mutator, UpdateOutcome> batch,
      boolean returnAfter) {
    // A caller's own combiner hands over mutators only: the step's thread's deadline is theirs.
    Deadline stepDeadline = Deadline.current();
    return new Requests() {
      public Deadline deadline(int i) {
        return stepDeadline;
      }

      public int size() {
        return batch.size();
      }

      public Mutator mutator(int i) {
        return batch.request(i);
      }

      public boolean returnAfter(int i) {
        return returnAfter;
      }

      public long submittedNanos(int i) {
        return batch.submittedNanos(i);
      }

      public boolean isCallersOwn(int i) {
        return batch.isCallersOwn(i);
      }

      public void succeed(int i, UpdateOutcome outcome) {
        batch.succeed(i, outcome);
      }

      public void fail(int i, Throwable error) {
        BatchUpdate.fail(batch, i, error);
      }

      public int attemptsMade(int i) {
        return batch.attemptsMade(i);
      }

      public void handBack(int i, int attemptsMade) {
        batch.handBack(i, attemptsMade);
      }
    };
  }

  /**
   * True while the calling thread runs a batch of this updater: an update a mutator makes from
   * there must run alone. Queued, it could wait for a leader that waits for this thread (two
   * leaders updating each other's documents), and its own document's queue is behind it.
   */
  boolean runningHere() {
    return runningHere.get() != null;
  }

  /** The state of a thread while it runs batches of this updater. */
  private static final class Running {
    boolean interruptSetAside;
  }

  /**
   * Runs every request to an answer. In a batch that holds another caller's request, an
   * interrupt of the leader (the calling thread) is set aside until the batch is done and then
   * restored: those callers did not ask to stop, and the driver would refuse the round trips of
   * an interrupted thread. It cuts a backoff short and fails nobody. The leader's own request
   * alone runs as a lone update, which an interrupt ends.
   */
  void run(Object id, Requests requests) {
    Running outer = runningHere.get();
    Running here = outer != null ? outer : new Running();
    runningHere.set(here);
    try {
      runBatch(id, requests);
    } finally {
      if (outer == null) {
        // Cleared, not removed: the thread's next get finds the entry instead of making it
        // again after every batch it led; null keeps no object of this library on the thread.
        runningHere.set(null);
        if (here.interruptSetAside) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** Before a round trip of a batch of several: see {@link #run}. */
  void setInterruptAside() {
    if (Thread.interrupted()) {
      runningHere.get().interruptSetAside = true;
    }
  }

  private void runBatch(Object id, Requests requests) {
    if (requests.size() == 1 && requests.isCallersOwn(0)) {
      // the leader's own update alone is a lone update, bit for bit
      runAlone(loop, listener, scope, id, requests);
      return;
    }
    listener.onBatch(scope, id, requests.size());
    BatchCallers callers = new BatchCallers(id, requests, loop, listener, scope, ticker);
    int retries = 0;
    while (!callers.pending.isEmpty()) {
      if (callers.handBackWithoutLeader(Duration.ZERO)) {
        return; // the leader was answered and its deadline passed: the others go on without it
      }
      // A round answers all its callers: it is bounded by the earliest of their deadlines,
      // not by the leader's thread's (the leader may be answered already, or not in it).
      Round round = new Round(this, callers);
      long readAt = ticker.nanoTime();
      List<Caller> retried = Deadline.replacing(BatchCallers.earliestDeadline(callers.pending),
          round::run);
      long roundNanos = ticker.nanoTime() - readAt;
      if (!retried.isEmpty()) {
        retries++;
        for (Caller c : retried) {
          if (c.lastTransient == null
              && !loop.pacing().chargesConflict(round.readVersion(), c.lastSeenVersion)) {
            c.uncharged++;
          }
        }
        Duration backoff = giveUpExhausted(callers, retried, retries, roundNanos);
        if (callers.handBackWithoutLeader(backoff)) {
          return; // the leader was answered; the backoff would take it past its deadline
        }
        if (!callers.pending.isEmpty()) {
          backOff(backoff);
        }
      }
    }
  }

  /**
   * A batch whose one request is the leader's own, run as a lone update: {@code onBatch}, then
   * {@code loop} from when the caller queued. The one path for it, also taken by a lock holder
   * that runs its own update under the lock without a batch engine of its own.
   */
  static void runAlone(UpdateLoop loop, WriteGuardListener listener, OperationScope scope,
      Object id, Requests requests) {
    listener.onBatch(scope, id, 1);
    UpdateOutcome outcome;
    try {
      outcome = loop.run(id, requests.mutator(0), requests.returnAfter(0),
          requests.submittedNanos(0), requests.attemptsMade(0));
    } catch (Throwable e) { // a mutator's undeclared checked exception too is its caller's
      requests.fail(0, e);
      return;
    }
    requests.succeed(0, outcome);
  }

  /**
   * After the batch's {@code retries}-th conflict or transient error: each retried caller
   * out of attempts, or whose deadline the next backoff would reach, gives up. Returns that
   * backoff.
   */
  private Duration giveUpExhausted(BatchCallers callers, List<Caller> retried, int retries,
      long roundNanos) {
    Deque<Caller> pending = callers.pending;
    RandomGenerator jitter = random != null ? random : ThreadLocalRandom.current();
    // A conflict is paced (RetryPacing); a transient error backs off by the policy alone.
    boolean conflict = retried.stream().allMatch(c -> c.lastTransient == null);
    Duration backoff = conflict
        ? loop.pacing().afterConflict(roundNanos, retries, jitter)
        : retry.backoff(retries, jitter);
    // A paced conflict also keeps room for the next round (RetryPacing#reserveNanos).
    Duration room = conflict
        ? backoff.plusNanos(loop.pacing().reserveNanos(roundNanos)) : backoff;
    long now = ticker.nanoTime();
    for (Caller c : retried) {
      if (!pending.contains(c)) {
        continue;
      }
      RetriesExhaustedException.Budget out = null;
      if (c.attempt - c.uncharged >= retry.maxAttempts()) {
        out = RetriesExhaustedException.Budget.ATTEMPTS;
      } else if (now + room.toNanos() - (c.startNanos + retry.deadline().toNanos()) >= 0
          || (c.own != null && c.own.endsWithin(room))) { // the caller's own thread's
        out = RetriesExhaustedException.Budget.DEADLINE;
      }
      if (out != null) {
        callers.exhausted(c, new RetriesExhaustedException(store.collectionName(), callers.id,
            c.attempt, c.elapsed(), out, c.lastSeenVersion, c.lastTransient));
      } else {
        listener.onRetry(scope, callers.id, c.attempt, backoff);
      }
    }
    return backoff;
  }

  /** One backoff; an interrupt of the leader cuts it short but fails nobody (see {@link #run}). */
  private void backOff(Duration backoff) {
    try {
      setInterruptAside();
      sleeper.sleep(backoff);
    } catch (InterruptedException e) {
      runningHere.get().interruptSetAside = true;
    }
  }
}
