package io.writeguard.monitor;

import java.time.Duration;

/**
 * Receives WriteGuard's events: update attempts and their outcomes, lock waits, lease losses,
 * fenced rejections and transaction retries. Every method has a no-op default, so an
 * implementation overrides only what it needs.
 *
 * <p>Listeners never break the operation: components call them through
 * {@link #safe(WriteGuardListener)}, which logs and ignores anything a listener throws.
 * Implementations are called from many threads at once and must be thread-safe and fast (no
 * I/O on the calling thread).
 *
 * <p>{@code key} is the document id or lock key; it is for hot-key tracking and logs, never for
 * meter tags (unbounded cardinality).
 */
public interface WriteGuardListener {

  /** A listener that ignores every event. */
  WriteGuardListener NOOP = new WriteGuardListener() {};

  /** One attempt of an update starts (attempt counts from 1). */
  default void onAttempt(OperationScope scope, Object key, int attempt) {}

  /** An attempt found the version moved (optimistic) and will be retried if budget remains. */
  default void onConflict(OperationScope scope, Object key, int attempt) {}

  /** The update will run again after {@code backoff}. */
  default void onRetry(OperationScope scope, Object key, int attempt, Duration backoff) {}

  /** The update was acknowledged after {@code attempts} attempts. */
  default void onSuccess(OperationScope scope, Object key, int attempts, Duration elapsed) {}

  /** The retry budget (attempts or deadline) ran out. */
  default void onExhausted(OperationScope scope, Object key, int attempts, Duration elapsed) {}

  /** The update failed for a reason that is not retried (not found, duplicate key, ...). */
  default void onFailure(OperationScope scope, Object key, Throwable error) {}

  /**
   * Group commit: one caller took a batch of {@code size} updates of document {@code key} (1
   * for a caller alone) and runs them together, one read and one write per round. Reported once
   * per batch, before its first attempt; each update of it still reports its own events.
   */
  default void onBatch(OperationScope scope, Object key, int size) {}

  /**
   * A lock wait ended: {@code acquired} is false when it timed out. {@code backend} is a short
   * name such as {@code local}, {@code mongo}, {@code redis}.
   */
  default void onLockWait(String backend, String key, Duration waited, boolean acquired) {}

  /** A lock was released after being held for {@code held}. */
  default void onLockReleased(String backend, String key, long token, Duration held) {}

  /** A holder's lease was lost (renewal failed or the lease expired under it). */
  default void onLeaseLost(String backend, String key, long token) {}

  /** A fenced write matched nothing because a newer token had already written the document. */
  default void onFencedRejection(OperationScope scope, Object key, long token) {}

  /** A transaction is retried because of an error carrying {@code errorLabel}. */
  default void onTransactionRetry(String errorLabel, int attempt) {}

  /** Wraps {@code listener} so that nothing it throws reaches the caller. */
  static WriteGuardListener safe(WriteGuardListener listener) {
    return SafeListener.wrap(listener);
  }

  /** Sends every event to each of {@code listeners} in order, each one guarded. */
  static WriteGuardListener composite(WriteGuardListener... listeners) {
    return SafeListener.composite(listeners);
  }
}
