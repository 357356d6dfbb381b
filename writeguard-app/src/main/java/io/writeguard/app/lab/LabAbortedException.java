package io.writeguard.app.lab;

import io.writeguard.WriteGuardException;

/**
 * The lab stopped before it could measure a strategy to the end: the database stopped
 * answering, the documents could not be read back, or the clients stalled. No result is
 * reported for the strategy that was running.
 */
public final class LabAbortedException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  public LabAbortedException(String message, Throwable cause) {
    super(message, cause);
  }
}
