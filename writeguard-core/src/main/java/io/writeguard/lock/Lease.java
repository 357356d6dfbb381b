package io.writeguard.lock;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One lease held by a {@link LeaseLockEngine} for one key, from the take to the release.
 *
 * <p>A take reserves a block of tokens {@code first..top}. Callers of this process queued for
 * the key receive the lease in turn, each with the next token of the block, without another
 * round trip; a later take by anyone gets a token above {@code top}, so tokens still rise
 * strictly from holder to holder.
 *
 * <p>Threads: tokens are handed out only by the holder of the key's in-process lock; the
 * watchdog renews and may mark the lease lost; {@code lost}, {@code ended}, {@code current},
 * {@code confirmedNanos} and {@code timer} are therefore atomic or volatile.
 */
final class Lease {
  final String key;
  final String attempt;
  final LeaseStore.Grant grant;
  final long startNanos;
  final AtomicBoolean lost = new AtomicBoolean();
  final AtomicBoolean ended = new AtomicBoolean();
  /** The handle holding the key now, or null between two local holders. */
  volatile LeaseLockHandle current;
  volatile ScheduledFuture<?> timer;
  /**
   * Ticker time at which the lease was last kept for a successor that had not queued yet
   * (see {@code LeaseLockEngine#release}); a parking's grace check compares it, so a check
   * left over from an earlier parking never frees a later one early.
   */
  volatile long parkedNanos;
  /** A check of a parked lease is scheduled (at most one at a time). */
  final AtomicBoolean parkedCheckPending = new AtomicBoolean();
  /** Ticker time at which the last successful take or renewal was sent (a safe lower bound). */
  private volatile long confirmedNanos;
  private long next; // guarded by the key's in-process lock

  Lease(String key, String attempt, LeaseStore.Grant grant, long sentNanos) {
    this.key = key;
    this.attempt = attempt;
    this.grant = grant;
    this.startNanos = sentNanos;
    this.confirmedNanos = sentNanos;
    this.next = grant.first();
  }

  boolean hasTokens() {
    return next <= grant.top();
  }

  /** The next token of the block; only the holder of the key's in-process lock calls this. */
  long nextToken() {
    return next++;
  }

  long confirmedNanos() {
    return confirmedNanos;
  }

  /** A renewal sent at {@code sentNanos} succeeded: the lease runs at least until then + lease. */
  void confirm(long sentNanos) {
    if (sentNanos - confirmedNanos > 0) {
      confirmedNanos = sentNanos;
    }
  }

  boolean usable() {
    return !lost.get() && !ended.get();
  }

  void cancelTimer() {
    ScheduledFuture<?> t = timer;
    if (t != null) {
      t.cancel(false);
    }
  }
}
