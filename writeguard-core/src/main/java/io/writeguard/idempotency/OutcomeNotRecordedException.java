package io.writeguard.idempotency;

import io.writeguard.WriteGuardException;

/**
 * The action ran, but its outcome could not be recorded: the claim's lease ran out and another
 * caller took the key over (so the action may have run twice: make the lease longer than the
 * action), or the server failed while storing it (the claim then expires and the action may run
 * again), or the collection's codecs cannot encode the outcome (the key is then marked done
 * without one, and every later call with it gets this exception too, until
 * {@code IdempotencyStore.forget}). The cause, if any, is the storage or encoding error.
 * Immutable and thread-safe.
 */
public class OutcomeNotRecordedException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final String key;

  public OutcomeNotRecordedException(String key, String reason, Throwable cause) {
    super("idempotency key '" + key + "': the action ran but its outcome was not recorded: "
        + reason, cause);
    this.key = key;
  }

  public String key() {
    return key;
  }
}
