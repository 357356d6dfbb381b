package io.writeguard.idempotency;

import io.writeguard.WriteGuardException;
import java.time.Duration;

/**
 * Another caller holds the claim on the key and did not finish within the wait. This call ran
 * nothing and wrote nothing; retry later (the claim's lease bounds how long it can last).
 * Immutable and thread-safe.
 */
public class IdempotencyInProgressException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final String key;
  private final Duration waited;

  public IdempotencyInProgressException(String key, Duration waited, String owner,
      int checks) {
    super("idempotency key '" + key + "' is still being processed by claim " + owner
        + " after waiting " + waited.toMillis() + "ms (" + checks + " checks); nothing was run");
    this.key = key;
    this.waited = waited;
  }

  public String key() {
    return key;
  }

  public Duration waited() {
    return waited;
  }
}
