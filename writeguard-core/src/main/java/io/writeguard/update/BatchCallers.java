package io.writeguard.update;

import io.writeguard.Ticker;
import io.writeguard.internal.Deadline;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.OptionalLong;
import org.bson.BsonDocument;

/**
 * The callers of one group-commit batch that are still to be answered, each with its state
 * across the rounds, and the one way each is answered: removed from {@link #pending}, told to
 * the listener, then answered through its request. Confined to the leader's thread.
 */
final class BatchCallers {
  final Object id;
  /**
   * Not answered yet, in arrival order. A deque: callers are answered mostly from its head, in
   * order, which a list would pay for by moving every later caller.
   */
  final Deque<Caller> pending;
  private final BatchUpdate.Requests requests;
  private final WriteGuardListener listener;
  private final OperationScope scope;
  private final Ticker ticker;
  /** The leader's own caller, or null when its request is not in this batch. */
  private final Caller leader;
  private boolean leaderAnswered;

  BatchCallers(Object id, BatchUpdate.Requests requests, UpdateLoop loop,
      WriteGuardListener listener, OperationScope scope, Ticker ticker) {
    this.id = id;
    this.requests = requests;
    this.listener = listener;
    this.scope = scope;
    this.ticker = ticker;
    this.pending = new ArrayDeque<>(requests.size());
    Caller leaders = null;
    for (int i = 0; i < requests.size(); i++) {
      Mutator mutator = requests.mutator(i);
      boolean returnAfter = requests.returnAfter(i);
      long startNanos = requests.submittedNanos(i);
      Deadline own = requests.deadline(i);
      Caller c = new Caller(i, mutator, returnAfter, startNanos,
          loop.deadlineOf(startNanos).earlier(own), own);
      c.attempt = requests.attemptsMade(i);
      pending.add(c);
      if (leaders == null && requests.isCallersOwn(i)) {
        leaders = c;
      }
    }
    this.leader = leaders;
  }

  /**
   * At a round's end: when the leader's own caller is answered, others are not, and the
   * leader's deadline ends within {@code next} (what the batch would spend before its next
   * round: a backoff, or nothing), hands them back to their queue with the attempts they made,
   * and returns true. Its thread then returns, as its caller's deadline promised, instead of
   * running their rounds past it; they go on under a batch of their own. Nothing is in flight
   * for them between rounds. Before that deadline the leader runs their rounds itself: a
   * hand-back costs them a new batch (under a lock, a new lock hand-off).
   */
  boolean handBackWithoutLeader(Duration next) {
    if (!leaderAnswered || pending.isEmpty() || !leader.deadline.endsWithin(next)) {
      return false;
    }
    for (Caller c : pending) {
      requests.handBack(c.index, c.attempt);
    }
    pending.clear();
    return true;
  }

  /** One caller's state across the rounds. */
  final class Caller {
    final int index;
    final Mutator mutator;
    final boolean returnAfter;
    final long startNanos;
    final Deadline deadline; // the caller's own (its policy's, or its thread's if earlier)
    final Deadline own; // its thread's, or null
    int attempt;
    int uncharged; // attempts lost to another writer's progress (RetryPacing#chargesConflict)
    OptionalLong lastSeenVersion = OptionalLong.empty();
    RuntimeException lastTransient;
    boolean alone; // its change must be written by itself (a combined write was refused)
    // this round's decision
    boolean writer;
    Throwable thrown; // what its mutator threw (anything, a checked exception too)
    BsonDocument state; // the document as this caller left it (with its version)
    long version;

    private Caller(int index, Mutator mutator, boolean returnAfter, long startNanos,
        Deadline deadline, Deadline own) {
      this.index = index;
      this.mutator = mutator;
      this.returnAfter = returnAfter;
      this.startNanos = startNanos;
      this.own = own;
      this.deadline = deadline;
    }

    Duration elapsed() {
      return Duration.ofNanos(ticker.nanoTime() - startNanos);
    }
  }

  /** The earliest of {@code callers}' deadlines (each has one). */
  static Deadline earliestDeadline(Iterable<Caller> callers) {
    Deadline earliest = null;
    for (Caller c : callers) {
      earliest = c.deadline.earlier(earliest);
    }
    return earliest;
  }

  void startAttempt(Caller c) {
    c.attempt++;
    listener.onAttempt(scope, id, c.attempt);
  }

  void succeed(Caller c, UpdateOutcome outcome) {
    answered(c);
    listener.onSuccess(scope, id, c.attempt, outcome.elapsed());
    requests.succeed(c.index, outcome);
  }

  void fail(Caller c, Throwable error) {
    answered(c);
    listener.onFailure(scope, id, error);
    requests.fail(c.index, error);
  }

  private void answered(Caller c) {
    pending.remove(c);
    leaderAnswered |= c == leader;
  }

  /** Gives {@code c} up: out of attempts, or its deadline would pass in the backoff. */
  void exhausted(Caller c, RetriesExhaustedException e) {
    answered(c);
    listener.onExhausted(scope, id, e.attempts(), e.elapsed());
    requests.fail(c.index, e);
  }
}
