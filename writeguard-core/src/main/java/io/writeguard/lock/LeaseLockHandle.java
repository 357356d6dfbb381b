package io.writeguard.lock;

import io.writeguard.internal.LockArguments;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A lock held from a {@link LeaseLockEngine}, whatever the store: the key's in-process lock plus
 * one token of the engine's lease for the key. Thread-safe; may be closed from any thread, once.
 */
final class LeaseLockHandle implements LockHandle {
  private final LeaseLockEngine engine;
  final Lease lease;
  private final LockHandle local;
  private final long token;
  private final long acquiredNanos;
  private final AtomicBoolean released = new AtomicBoolean();
  private final AtomicBoolean localHeld = new AtomicBoolean(true);
  private volatile boolean lost;

  LeaseLockHandle(LeaseLockEngine engine, Lease lease, LockHandle local, long token, long acquiredNanos) {
    this.engine = engine;
    this.lease = lease;
    this.local = local;
    this.token = token;
    this.acquiredNanos = acquiredNanos;
  }

  @Override
  public String key() {
    return lease.key;
  }

  @Override
  public long token() {
    return token;
  }

  /**
   * True once the watchdog found the lease taken over, renewals failed until it ran out, or it
   * ran out on this process's clock (counted from when the last successful take or renewal was
   * sent, so this side gives up no later than the store does). Sticky.
   */
  @Override
  public boolean isLost() {
    if (lost) {
      return true;
    }
    if (released.get()) {
      return false;
    }
    if (engine.leaseRanOut(lease)) {
      engine.markLost(lease, "the lease ran out without a renewal");
      lost = true;
      return true;
    }
    return false;
  }

  @Override
  public boolean isReleased() {
    return released.get();
  }

  @Override
  public void close() {
    if (released.compareAndSet(false, true)) {
      engine.release(this, false);
    }
  }

  @Override
  public void closeForSuccessor() {
    if (released.compareAndSet(false, true)) {
      engine.release(this, true);
    }
  }

  long acquiredNanos() {
    return acquiredNanos;
  }

  void markLost() {
    lost = true;
  }

  boolean holdsLocal() {
    return localHeld.get();
  }

  /** Gives up the in-process lock, once, whoever calls first (close or the lost path). */
  void releaseLocal() {
    if (localHeld.compareAndSet(true, false)) {
      local.close();
    }
  }

  /**
   * Takes the in-process lock back from a handle never given to its caller, so the caller keeps
   * its turn; false if the lost path already passed the turn on.
   */
  boolean reclaimLocal() {
    return localHeld.compareAndSet(true, false);
  }

  @Override
  public String toString() {
    return "LeaseLockHandle[" + engine.backend() + ", key=" + LockArguments.shorten(lease.key)
        + ", token=" + token + (lost ? ", lost" : "") + (released.get() ? ", released" : "") + "]";
  }
}
