package io.writeguard.update;

import java.time.Duration;

/**
 * The collection's validator rejected the new document (DocumentValidationFailure, code 121).
 * Not retried: the same change fails the same rule. Nothing was written. Immutable and
 * thread-safe.
 */
public class DocumentValidationException extends UpdateFailedException {
  private static final long serialVersionUID = 1L;

  public DocumentValidationException(
      String collection, Object key, int attempts, Duration elapsed, Throwable cause) {
    super(collection, key, attempts, elapsed,
        "was rejected by the collection's validator; not retried, nothing was written", cause);
  }
}
