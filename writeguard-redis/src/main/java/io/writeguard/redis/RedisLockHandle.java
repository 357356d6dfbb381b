package io.writeguard.redis;

import io.writeguard.lock.LockHandle;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A held Redis lock: this process's turn for the key plus one token of the process's
 * {@link RedisLease} for it. The lease (value, renewal, loss) is shared by the local holders it
 * is handed on to; the token is this holder's own.
 *
 * <p>{@link #close()} either keeps the lease for the next caller of this process queued for the
 * key, or sends the release script without waiting for the answer; then it passes the local
 * turn on. Thread-safe; may be closed from any thread, once.
 */
final class RedisLockHandle implements LockHandle {
  private final RedisLockService service;
  final RedisLease lease;
  private final long token;
  private final LockHandle localTurn;
  private final long acquiredAt;
  private final AtomicBoolean released = new AtomicBoolean();
  private final AtomicBoolean localHeld = new AtomicBoolean(true);
  private volatile boolean lost;

  RedisLockHandle(RedisLockService service, RedisLease lease, long token, LockHandle localTurn,
      long acquiredAt) {
    this.service = service;
    this.lease = lease;
    this.token = token;
    this.localTurn = localTurn;
    this.acquiredAt = acquiredAt;
  }

  @Override
  public String key() {
    return lease.key;
  }

  @Override
  public long token() {
    return token;
  }

  /** The value stored at the lock key while this handle's lease holds it: {@code owner:first}. */
  String value() {
    return lease.value;
  }

  /**
   * True once the lease was found lost, or it ran out on this process's clock (counted from when
   * the last successful acquire or renewal was sent, so this side always gives up no later than
   * Redis does).
   */
  @Override
  public boolean isLost() {
    return lost || (!released.get() && lease.leaseRanOut());
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

  long acquiredAt() {
    return acquiredAt;
  }

  void markLost() {
    lost = true;
  }

  boolean holdsLocal() {
    return localHeld.get();
  }

  /** Gives up the process-local turn, once, whoever calls first (close or the lost path). */
  void releaseLocal() {
    if (localHeld.compareAndSet(true, false)) {
      localTurn.close();
    }
  }

  @Override
  public String toString() {
    return "RedisLockHandle[key=" + lease.key + ", token=" + token
        + (released.get() ? ", released" : "") + (isLost() ? ", lost" : "") + "]";
  }
}
