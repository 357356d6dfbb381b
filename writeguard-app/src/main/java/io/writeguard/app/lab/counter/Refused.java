package io.writeguard.app.lab.counter;

/**
 * Thrown inside a read-modify-write when the balance read cannot cover the decrement, to end
 * the update without writing; the strategy catches it and marks the operation refused. No
 * stack trace: it is an answer, not a fault.
 */
final class Refused extends RuntimeException {
  private static final long serialVersionUID = 1L;

  Refused() {
    super("insufficient balance", null, false, false);
  }
}
