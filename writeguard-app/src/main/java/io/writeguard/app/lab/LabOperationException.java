package io.writeguard.app.lab;

import io.writeguard.WriteGuardException;

/**
 * One lab operation was not acknowledged for a reason the strategy found itself (the target
 * document was missing, the write matched nothing). The lab counts it as an error.
 */
public final class LabOperationException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  public LabOperationException(String message) {
    super(message);
  }
}
