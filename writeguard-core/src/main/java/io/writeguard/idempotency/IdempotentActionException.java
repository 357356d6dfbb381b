package io.writeguard.idempotency;

import io.writeguard.WriteGuardException;

/**
 * The action threw a checked exception (the cause). Its claim was released, so a later call
 * with the same key runs the action again. Unchecked exceptions from the action are rethrown
 * unchanged instead. Immutable and thread-safe.
 */
public class IdempotentActionException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  public IdempotentActionException(String key, Throwable cause) {
    super("action for idempotency key '" + key + "' failed: " + cause
        + " (claim released; a later call may retry it)", cause);
  }
}
