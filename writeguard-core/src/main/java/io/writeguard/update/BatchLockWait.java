package io.writeguard.update;

import io.writeguard.Ticker;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.combine.KeyedCombiner;
import io.writeguard.internal.Deadline;
import io.writeguard.internal.LockArguments;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;

/**
 * The wait for a document's lock of one {@link LockedUpdater} batch of several callers, on its
 * leader's thread. Made for one batch; confined to that thread.
 *
 * <p>Why it is built this way. The wait is the batch's, not the leader's:
 *
 * <ul>
 *   <li>It runs under the earliest deadline of the callers still waiting: the leader's thread
 *       lends the batch none of its own, as for the rounds. When that deadline cuts the wait,
 *       only the callers whose deadline passed are answered with the {@link LockTimeoutException};
 *       the others wait on for what is left of the lock wait. When the leader is one of those
 *       answered, the others are handed back to the queue instead, to wait on under a batch of
 *       their own: the leader's thread returns at its deadline, as its caller was promised.
 *   <li>An interrupt of the leader is set aside and the wait resumed: the other callers did not
 *       ask to stop. The caller restores the flag once the batch is done
 *       ({@link #interruptSetAside}); a wait cut by it and resumed is still reported against
 *       the whole lock wait.
 *   <li>A failure (not had in time, the backend failed) answers every caller still waiting, and
 *       is each one's last event.
 * </ul>
 */
final class BatchLockWait {
  private final LockService locks;
  private final Duration lockWait;
  private final Ticker ticker;
  private final WriteGuardListener listener;
  private final OperationScope scope;
  private final KeyedCombiner.Batch<BatchUpdate.Call, UpdateOutcome> batch;
  private boolean interruptSetAside;

  BatchLockWait(LockService locks, Duration lockWait, Ticker ticker, WriteGuardListener listener,
      OperationScope scope, KeyedCombiner.Batch<BatchUpdate.Call, UpdateOutcome> batch) {
    this.locks = locks;
    this.lockWait = lockWait;
    this.ticker = ticker;
    this.listener = listener;
    this.scope = scope;
    this.batch = batch;
  }

  /** Whether an interrupt of the leader was set aside while it waited. */
  boolean interruptSetAside() {
    return interruptSetAside;
  }

  /**
   * The lock under {@code lockKey} for the batch's callers still waiting; null when the
   * leader's own call was answered (its deadline passed) and the others were handed back to
   * the queue, so that its thread returns now and theirs wait on under a batch of their own.
   *
   * @throws RuntimeException the failure every caller still waiting was answered with
   */
  LockHandle acquire(String lockKey, Object id) {
    long start = ticker.nanoTime();
    Duration wait = lockWait;
    boolean resumed = false;
    while (true) {
      try {
        Duration w = wait;
        LockHandle held = Deadline.replacing(earliestOpenDeadline(), () -> locks.acquire(lockKey, w));
        lockWaitsOver();
        return held;
      } catch (WriteGuardInterruptedException e) {
        Thread.interrupted(); // the service restored the flag: keep it for after the batch
        interruptSetAside = true;
        resumed = true;
        wait = LockArguments.atLeastOneTry(left(start));
      } catch (RuntimeException e) {
        RuntimeException failure = e instanceof LockTimeoutException t && resumed
            ? new LockTimeoutException(locks.backend(), lockKey, lockWait, t.waiters())
            : e;
        Duration left = left(start);
        if (e instanceof LockTimeoutException && !left.isNegative() && !left.isZero()
            && failPassed(id, failure)) {
          if (leadersOwnIsAnswered()) {
            handBackOpen(left);
            return null;
          }
          wait = left; // only the callers whose deadline passed gave up: the rest wait on
          continue;
        }
        for (int i = 0; i < batch.size(); i++) {
          if (!batch.isDone(i)) {
            listener.onFailure(scope, id, failure);
          }
        }
        throw failure;
      }
    }
  }

  /** True when the batch holds the leader's own call and it is answered. */
  private boolean leadersOwnIsAnswered() {
    for (int i = 0; i < batch.size(); i++) {
      if (batch.isCallersOwn(i)) {
        return batch.isDone(i);
      }
    }
    return false;
  }

  /**
   * Hands every caller still waiting back to the queue, nothing having been done for them, with
   * what is left of their lock wait: the next batch waits for the lock no longer for them.
   */
  private void handBackOpen(Duration left) {
    for (int i = 0; i < batch.size(); i++) {
      if (!batch.isDone(i)) {
        batch.request(i).lockWaitEndsWithin(left);
        batch.handBack(i, batch.attemptsMade(i));
      }
    }
  }

  private Duration left(long start) {
    return lockWait.minusNanos(ticker.nanoTime() - start);
  }

  /**
   * The earliest deadline of the batch's callers not answered yet, or end of a lock wait that
   * an earlier batch began for one (null: none has either).
   */
  private Deadline earliestOpenDeadline() {
    Deadline earliest = null;
    for (int i = 0; i < batch.size(); i++) {
      if (!batch.isDone(i)) {
        earliest = earlier(batch.request(i).deadline(), earliest);
        earliest = earlier(batch.request(i).lockWaitEnd(), earliest);
      }
    }
    return earliest;
  }

  private static Deadline earlier(Deadline d, Deadline other) {
    return d == null ? other : d.earlier(other);
  }

  /** The lock is had for every caller still waiting: a later wait of theirs is a new one. */
  private void lockWaitsOver() {
    for (int i = 0; i < batch.size(); i++) {
      if (!batch.isDone(i)) {
        batch.request(i).lockWaitOver();
      }
    }
  }

  /** Whether call {@code i}'s deadline, or the end of its lock wait, has passed. */
  private boolean passed(int i) {
    BatchUpdate.Call call = batch.request(i);
    return call.deadline() != null && call.deadline().passed()
        || call.lockWaitEnd() != null && call.lockWaitEnd().passed();
  }

  /**
   * After a wait cut by the earliest deadline: answers with {@code timeout} the callers whose
   * deadline passed. True when some did and others are left to wait on.
   */
  private boolean failPassed(Object id, RuntimeException timeout) {
    int passed = 0;
    int open = 0;
    for (int i = 0; i < batch.size(); i++) {
      if (!batch.isDone(i)) {
        open++;
        if (passed(i)) {
          passed++;
        }
      }
    }
    if (passed == 0 || passed == open) {
      return false;
    }
    for (int i = 0; i < batch.size(); i++) {
      if (!batch.isDone(i) && passed(i)) {
        listener.onFailure(scope, id, timeout);
        batch.fail(i, timeout);
      }
    }
    return true;
  }
}
