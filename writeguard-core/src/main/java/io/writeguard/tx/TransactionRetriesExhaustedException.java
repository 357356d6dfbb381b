package io.writeguard.tx;

import java.time.Duration;

/**
 * A transaction kept failing with a retryable label ({@code TransientTransactionError} or
 * {@code UnknownTransactionCommitResult}) until its deadline or attempt budget ran out.
 *
 * <p>After an exhausted {@code UnknownTransactionCommitResult} the outcome is truly unknown:
 * the commit may have been applied. Callers that must know should make the body idempotent
 * (an operation id in the filter, see {@link io.writeguard.idempotency.OperationIdGuard}).
 * Immutable and thread-safe.
 */
public class TransactionRetriesExhaustedException extends TransactionFailedException {
  private static final long serialVersionUID = 1L;

  private final String lastLabel;

  public TransactionRetriesExhaustedException(String message, int attempts, Duration elapsed,
      String lastLabel, Throwable cause) {
    super(message, attempts, elapsed, cause);
    this.lastLabel = lastLabel;
  }

  /** The error label of the last failure. */
  public String lastLabel() {
    return lastLabel;
  }
}
