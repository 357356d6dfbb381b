package io.writeguard.counter;

import io.writeguard.WriteGuardException;

/**
 * A decrement asked for more than the counter holds. Nothing was written: the counter's
 * total is what it would have been without the call. Immutable and thread-safe.
 */
public class InsufficientBalanceException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final String counterId;
  private final long requested;
  private final long available;

  public InsufficientBalanceException(String counterId, long requested, long available) {
    super("counter '" + counterId + "' cannot be decremented by " + requested + ": only "
        + available + " available; nothing was written");
    this.counterId = counterId;
    this.requested = requested;
    this.available = available;
  }

  public String counterId() {
    return counterId;
  }

  public long requested() {
    return requested;
  }

  /** What the counter held (or what could be gathered) when the decrement was refused. */
  public long available() {
    return available;
  }
}
