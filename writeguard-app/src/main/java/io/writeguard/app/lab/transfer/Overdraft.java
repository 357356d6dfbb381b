package io.writeguard.app.lab.transfer;

/**
 * Thrown inside a transaction's body when the source account cannot cover the transfer, to
 * abort it; the strategy catches it and marks the transfer refused. No stack trace: it is an
 * answer, not a fault.
 */
final class Overdraft extends RuntimeException {
  private static final long serialVersionUID = 1L;

  Overdraft() {
    super("insufficient balance", null, false, false);
  }
}
