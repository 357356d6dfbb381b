package io.writeguard.lock;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the in-process handles ({@link LocalLockHandle}, {@link PathLockHandle}) share: key,
 * token, when it was taken, and a release that runs once whoever closes first. Never lost: an
 * in-process lock has no lease. Thread-safe.
 */
abstract class InProcessLockHandle implements LockHandle {
  private final String key;
  private final long token;
  private final long acquiredAtNanos;
  private final AtomicBoolean released = new AtomicBoolean();

  InProcessLockHandle(String key, long token, long acquiredAtNanos) {
    this.key = key;
    this.token = token;
    this.acquiredAtNanos = acquiredAtNanos;
  }

  @Override
  public String key() {
    return key;
  }

  @Override
  public long token() {
    return token;
  }

  long acquiredAtNanos() {
    return acquiredAtNanos;
  }

  /** Always false: an in-process lock lives as long as its handle is open. */
  @Override
  public boolean isLost() {
    return false;
  }

  @Override
  public boolean isReleased() {
    return released.get();
  }

  @Override
  public void close() {
    if (released.compareAndSet(false, true)) {
      release();
    }
  }

  /** Gives the lock back to its service; called once, by the first {@link #close()}. */
  abstract void release();

  /** {@code ", token=<n>"} plus {@code ", released"} once closed, for {@code toString}. */
  String tokenAndState() {
    return ", token=" + token + (released.get() ? ", released" : "");
  }
}
