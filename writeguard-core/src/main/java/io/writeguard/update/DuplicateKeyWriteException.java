package io.writeguard.update;

import java.time.Duration;

/**
 * The write would have given the document a key that a unique index already holds
 * ({@code ErrorCategory.DUPLICATE_KEY}, the E11000 family). Not retried: re-reading and
 * re-applying the same change hits the same index again. Nothing was written. Immutable and
 * thread-safe.
 */
public class DuplicateKeyWriteException extends UpdateFailedException {
  private static final long serialVersionUID = 1L;

  public DuplicateKeyWriteException(
      String collection, Object key, int attempts, Duration elapsed, Throwable cause) {
    super(collection, key, attempts, elapsed,
        "would duplicate a unique key; not retried, nothing was written", cause);
  }
}
