package io.writeguard.tx;

import io.writeguard.WriteGuardException;

/**
 * The server cannot run multi-document transactions (a standalone server, such as the embedded
 * one). Thrown before the body runs: nothing was executed and nothing written.
 * Immutable and thread-safe.
 */
public class TransactionsUnsupportedException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  public TransactionsUnsupportedException(String message) {
    super(message);
  }

  public TransactionsUnsupportedException(String message, Throwable cause) {
    super(message, cause);
  }
}
