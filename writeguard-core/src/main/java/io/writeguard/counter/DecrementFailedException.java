package io.writeguard.counter;

import io.writeguard.WriteGuardException;

/**
 * A decrement failed on a server error part-way through combining shards, and everything it
 * had drained was given back: the counter is exactly as before, nothing was written. Safe to
 * try again. (When the give-back itself cannot be confirmed, {@link StrandedBalanceException}
 * is thrown instead.) Immutable and thread-safe.
 */
public class DecrementFailedException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final String counterId;
  private final long amount;

  public DecrementFailedException(String counterId, long amount, Throwable cause) {
    super("counter '" + counterId + "': decrement by " + amount + " failed on a server error"
        + " while combining shards; every drained amount was given back, nothing was written;"
        + " cause: " + cause, cause);
    this.counterId = counterId;
    this.amount = amount;
  }

  public String counterId() {
    return counterId;
  }

  public long amount() {
    return amount;
  }
}
