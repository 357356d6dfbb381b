package io.writeguard.lock;

import io.writeguard.WriteGuardException;

/**
 * The lock backend failed (server unreachable, command error). Not the same as "busy".
 * Immutable and thread-safe.
 */
public class LockBackendException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  public LockBackendException(String message, Throwable cause) {
    super(message, cause);
  }
}
