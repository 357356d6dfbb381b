package io.writeguard.lock;

import io.writeguard.internal.LockArguments;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A lock held from a {@link MongoLeaseLockService}: the key's in-process lock plus one token of
 * the service's MongoDB lease for the key. Thread-safe; may be closed from any thread, once.
 */
final class MongoLeaseHandle implements LockHandle {
  private final MongoLeaseLockService service;
  final LeaseSession session;
  private final LockHandle local;
  private final long token;
  private final long acquiredNanos;
  private final AtomicBoolean released = new AtomicBoolean();
  private final AtomicBoolean localHeld = new AtomicBoolean(true);
  private volatile boolean lost;

  MongoLeaseHandle(MongoLeaseLockService service, LeaseSession session, LockHandle local,
      long token, long acquiredNanos) {
    this.service = service;
    this.session = session;
    this.local = local;
    this.token = token;
    this.acquiredNanos = acquiredNanos;
  }

  @Override
  public String key() {
    return session.key;
  }

  @Override
  public long token() {
    return token;
  }

  /**
   * True once the watchdog failed to renew, the lock document was taken over, or the lease ran
   * out on this process's clock (measured from when the last successful take or renewal was
   * sent, so this side always gives up no later than the server does). Sticky.
   */
  @Override
  public boolean isLost() {
    if (lost) {
      return true;
    }
    if (released.get()) {
      return false;
    }
    if (session.lostAnnounced) {
      // Guard against the race with sessionLost: handed out from the session as it was lost.
      lost = true;
      return true;
    }
    if (service.leaseRanOut(session)) {
      service.sessionLost(session, "the lease ran out without a renewal");
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
      service.release(this);
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
  boolean releaseLocal() {
    if (localHeld.compareAndSet(true, false)) {
      local.close();
      return true;
    }
    return false;
  }

  @Override
  public String toString() {
    return "MongoLeaseHandle[key=" + LockArguments.shorten(session.key) + ", token=" + token
        + (lost ? ", lost" : "") + (released.get() ? ", released" : "") + "]";
  }
}
