package io.writeguard.lock;

/**
 * A held lock. Carries its fencing token and knows whether its lease was lost.
 *
 * <p>Only this handle can release its lock, and only once: {@link #close()} after the first
 * release does nothing, and a release never frees a lock that another holder has taken over
 * after this handle's lease expired. Thread-safe.
 */
public interface LockHandle extends AutoCloseable {

  /** The locked key. */
  String key();

  /**
   * The fencing token: strictly greater than the token of every earlier holder of this key.
   * Pass it to fenced writes ({@link Fencing}) so MongoDB itself refuses a stale holder.
   */
  long token();

  /**
   * True once the lease is known to be lost: renewal failed, or the lease ran out before the
   * work finished. A lost handle must not write; a fenced write from it is refused anyway.
   */
  boolean isLost();

  /** True after {@link #close()}. */
  boolean isReleased();

  /** Releases the lock if this handle still holds it; idempotent. */
  @Override
  void close();

  /**
   * Releases the lock like {@link #close()}, telling the service that another caller of this
   * process is about to ask for the same key (a queue of callers the process keeps itself, as
   * {@code LockedUpdater}'s group commit does). A lease lock may then keep its lease for that
   * caller within its turn ({@code handoffBatch}, {@code handoffSlice}, half the lease), so the
   * next hold costs no round trip; if no caller of this process asks within
   * {@code LeaseLockEngine.SUCCESSOR_GRACE} the lease is let go. Safety is that of a hand-off
   * between local waiters: the next holder gets a higher token. Locks without a lease ignore
   * the hint; idempotent, like {@code close()}.
   */
  default void closeForSuccessor() {
    close();
  }
}
