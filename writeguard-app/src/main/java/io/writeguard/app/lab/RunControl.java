package io.writeguard.app.lab;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Shared by the clients of one run: when to stop, and the failure that stopped it early.
 * Thread-safe.
 */
final class RunControl {
  private final long durationNanos;
  private volatile long deadlineNanos;
  private volatile boolean stopped;
  private final AtomicReference<Throwable> fatal = new AtomicReference<>();

  private RunControl(long durationNanos) {
    this.durationNanos = durationNanos;
  }

  /** Clients stop {@code durationNanos} after {@link #begin}. */
  static RunControl timed(long durationNanos) {
    return new RunControl(durationNanos);
  }

  /** Clients stop when their own quota is done. */
  static RunControl byQuota() {
    return new RunControl(0);
  }

  /** Starts the clock; called once, before the clients are let go. */
  void begin(long nowNanos) {
    deadlineNanos = nowNanos + durationNanos;
  }

  /** True while a client with {@code remaining} quota left should start another operation. */
  boolean goOn(long nowNanos, long remaining) {
    if (stopped) {
      return false;
    }
    return durationNanos > 0 ? nowNanos - deadlineNanos < 0 : remaining > 0;
  }

  /** Stops every client because of {@code error}; the first error wins. */
  void fail(Throwable error) {
    fatal.compareAndSet(null, error);
    stopped = true;
  }

  void stop() {
    stopped = true;
  }

  Throwable fatal() {
    return fatal.get();
  }
}
