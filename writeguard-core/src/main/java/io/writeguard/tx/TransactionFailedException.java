package io.writeguard.tx;

import io.writeguard.WriteGuardException;
import java.time.Duration;

/**
 * A transaction failed with a MongoDB error that is not retried (no retryable label), and was
 * aborted; nothing it wrote is visible. The cause is the driver's exception.
 * Immutable and thread-safe.
 */
public class TransactionFailedException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final int attempts;
  private final Duration elapsed;

  public TransactionFailedException(String message, int attempts, Duration elapsed,
      Throwable cause) {
    super(message, cause);
    this.attempts = attempts;
    this.elapsed = elapsed;
  }

  /** How many times the body was started. */
  public int attempts() {
    return attempts;
  }

  public Duration elapsed() {
    return elapsed;
  }
}
