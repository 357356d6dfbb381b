package io.writeguard.lock;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One MongoDB lease held by this service for one key, from the take to the release.
 *
 * <p>A take raises the stored token by a block of {@code block} tokens, {@code (top - block,
 * top]}. Local callers queued for the key receive the lock in turn, each with the next token of
 * the block, without another round trip; a later take by anyone gets a token above {@code top},
 * so tokens still rise strictly from holder to holder.
 *
 * <p>Threads: token hand-out runs only for the holder of the key's in-process lock; the watchdog
 * thread renews and may mark the session lost; {@code lost}, {@code ended}, {@code current} and
 * {@code confirmedNanos} are therefore atomic or volatile. Not API.
 */
final class LeaseSession {
  final String key;
  final long top;
  final int block;
  final long startNanos;
  final AtomicBoolean lost = new AtomicBoolean();
  final AtomicBoolean ended = new AtomicBoolean();
  /**
   * Set once the loss has been announced to the listener. A handle handed out in the instant
   * the session was lost (after the hand-out's usable check, before {@code current} was set)
   * is not marked by {@code sessionLost}; it reads this instead.
   */
  volatile boolean lostAnnounced;
  /** Ticker time at which the last successful take or renewal was sent (a safe lower bound). */
  private volatile long confirmedNanos;
  /** The handle now holding the key, or null between two local holders. */
  volatile MongoLeaseHandle current;
  volatile ScheduledFuture<?> timer;
  private long next; // guarded by the key's in-process lock

  LeaseSession(String key, long top, int block, long sentNanos) {
    this.key = key;
    this.top = top;
    this.block = block;
    this.startNanos = sentNanos;
    this.confirmedNanos = sentNanos;
    this.next = top - block + 1;
  }

  boolean hasTokens() {
    return next <= top;
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
