package io.writeguard.app.lab.counter;

import java.util.Objects;

/**
 * One operation on a hot balance: add {@code amount} ({@code > 0}) or take {@code -amount}
 * ({@code < 0}). A decrement the balance cannot cover is <em>refused</em>: the strategy marks
 * the operation with {@link #refuse()} and returns normally, because a refusal is a correct,
 * acknowledged answer ("insufficient balance"), not an error, and changes nothing.
 *
 * <p>Created by one client for one call of the strategy and used on that client's thread
 * only; not thread-safe.
 */
public final class CounterOp {
  private final String counterId;
  private final int counter;
  private final long amount;
  private boolean refused;

  CounterOp(String counterId, int counter, long amount) {
    this.counterId = Objects.requireNonNull(counterId, "counterId");
    if (amount == 0) {
      throw new IllegalArgumentException("amount must not be 0");
    }
    this.counter = counter;
    this.amount = amount;
  }

  /** The balance's document id (for the sharded layouts, the counter id). */
  public String counterId() {
    return counterId;
  }

  /** Index of the balance among the run's hot balances. */
  int counter() {
    return counter;
  }

  /** Positive for an increment, negative for a decrement. */
  public long amount() {
    return amount;
  }

  public boolean isDecrement() {
    return amount < 0;
  }

  /** The amount without its sign. */
  public long magnitude() {
    return Math.abs(amount);
  }

  /** Called by a strategy when the balance could not cover this decrement. */
  public void refuse() {
    if (!isDecrement()) {
      throw new IllegalStateException("an increment cannot be refused");
    }
    refused = true;
  }

  public boolean refused() {
    return refused;
  }

  @Override
  public String toString() {
    return (isDecrement() ? "decrement " : "increment ") + magnitude() + " on " + counterId;
  }
}
