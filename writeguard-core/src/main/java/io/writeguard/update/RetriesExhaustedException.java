package io.writeguard.update;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * The retry budget ran out: every attempt found the version moved (or failed transiently)
 * until {@link RetryPolicy#maxAttempts()} or {@link RetryPolicy#deadline()} was reached.
 * Nothing was written by this call. Many of these on one document mean it is hot: use an
 * atomic operator, shard it, or take a lock. Immutable and thread-safe.
 */
public class RetriesExhaustedException extends UpdateFailedException {
  private static final long serialVersionUID = 1L;

  /** Which budget ran out. */
  public enum Budget {
    ATTEMPTS, DEADLINE
  }

  private final Budget budget;
  private final Long lastSeenVersion;

  public RetriesExhaustedException(
      String collection, Object key, int attempts, Duration elapsed, Budget budget,
      OptionalLong lastSeenVersion, Throwable lastCause) {
    super(collection, key, attempts, elapsed, "gave up: "
        + (budget == Budget.ATTEMPTS ? "no attempts left" : "deadline reached")
        + "; last seen version " + (lastSeenVersion.isPresent()
            ? Long.toString(lastSeenVersion.getAsLong()) : "none")
        + "; last failure: " + (lastCause == null ? "version conflict" : "transient error")
        + "; nothing was written", lastCause);
    this.budget = budget;
    this.lastSeenVersion = lastSeenVersion.isPresent() ? lastSeenVersion.getAsLong() : null;
  }

  /** Attempts or deadline. */
  public Budget budget() {
    return budget;
  }

  /** The newest version this call saw on the server; empty if it never read one. */
  public OptionalLong lastSeenVersion() {
    return lastSeenVersion == null ? OptionalLong.empty() : OptionalLong.of(lastSeenVersion);
  }
}
