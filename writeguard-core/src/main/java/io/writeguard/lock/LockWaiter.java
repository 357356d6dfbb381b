package io.writeguard.lock;

import io.writeguard.Ticker;
import io.writeguard.internal.Deadline;
import java.util.concurrent.locks.LockSupport;

/**
 * One caller queued for an in-process lock. The releaser hands the lock over by calling
 * {@link #grant} (inside the key's critical section) and then {@link #wake}; the waiter parks
 * until it sees the grant, its wait passes on the injected ticker (or the calling thread's
 * deadline on the JVM's clock), or it is interrupted.
 *
 * <p>The thread is recorded only to wake it: ownership of the lock is the granted handle, which
 * any thread may close. Thread-safe: {@code granted} is volatile, written once.
 *
 * @param <H> the handle type the waiter receives
 */
final class LockWaiter<H> {
  enum Outcome { GRANTED, TIMED_OUT, INTERRUPTED }

  private final Thread thread = Thread.currentThread();
  private volatile H granted;

  /** Called by the releaser while it holds the key's critical section. */
  void grant(H handle) {
    granted = handle;
  }

  /** Called by the releaser after leaving the critical section. */
  void wake() {
    LockSupport.unpark(thread);
  }

  /** The handed-over handle, or null while still waiting. */
  H granted() {
    return granted;
  }

  /**
   * Parks until granted, timed out or interrupted. A grant seen before the interrupt wins (the
   * interrupt flag is then left set for the caller); an interrupt clears the flag here and the
   * caller must restore it. No polling: each park lasts the whole remaining time and ends early
   * only through {@link #wake}, an interrupt or a spurious wake-up.
   */
  Outcome await(Ticker ticker, long startNanos, long timeoutNanos) {
    // The caller's deadline runs on the JVM's clock, the wait on the service's ticker: a
    // ticker of a test's own must not stretch the caller's deadline.
    Deadline deadline = Deadline.current();
    while (true) {
      if (granted != null) {
        return Outcome.GRANTED;
      }
      long remaining = timeoutNanos - (ticker.nanoTime() - startNanos);
      if (deadline != null) {
        remaining = Math.min(remaining, deadline.left().toNanos());
      }
      if (Thread.interrupted()) {
        return Outcome.INTERRUPTED;
      }
      if (remaining <= 0) {
        return Outcome.TIMED_OUT;
      }
      LockSupport.parkNanos(this, remaining);
    }
  }
}
