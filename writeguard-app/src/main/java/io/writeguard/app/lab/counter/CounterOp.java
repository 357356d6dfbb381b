package io.writeguard.app.lab.counter;

import com.mongodb.client.model.Updates;
import java.util.Objects;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * One operation on a hot balance: add {@code amount} ({@code > 0}) or take {@code -amount}
 * ({@code < 0}). A decrement the balance cannot cover is <em>refused</em>: the strategy marks
 * the operation with {@link #refuse()} and returns normally, because a refusal is a correct,
 * acknowledged answer ("insufficient balance"), not an error, and changes nothing.
 *
 * <p>Every operation has an id no other operation of the run has ({@code client << 40 |
 * sequence}); every write it makes records {@code {op: id, d: change}} on the {@link #LEDGER}
 * of the document it changes, in the same write (see {@link CounterRun}).
 *
 * <p>Created by one client for one call of the strategy and used on that client's thread
 * only; not thread-safe.
 */
public final class CounterOp {
  /** The array field of a balance document that records the writes' operation ids. */
  public static final String LEDGER = "ledger";

  private final long id;
  private final String counterId;
  private final int counter;
  private final long amount;
  private boolean refused;

  CounterOp(long id, String counterId, int counter, long amount) {
    this.id = id;
    this.counterId = Objects.requireNonNull(counterId, "counterId");
    if (amount == 0) {
      throw new IllegalArgumentException("amount must not be 0");
    }
    this.counter = counter;
    this.amount = amount;
  }

  /** This operation's id, unique in the run. */
  public long id() {
    return id;
  }

  /** The ledger entry of a write of this operation that changes the balance by {@code change}. */
  public Document ledgerEntry(long change) {
    return new Document("op", id).append("d", change);
  }

  /** {@code $push} of {@link #ledgerEntry}: goes into the write that changes the balance. */
  public Bson recordChange(long change) {
    return Updates.push(LEDGER, ledgerEntry(change));
  }

  /** What this operation, acknowledged, did to its balance: 0 when refused. */
  long effect() {
    return refused ? 0 : amount;
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
    return (isDecrement() ? "decrement " : "increment ") + magnitude() + " on " + counterId
        + " (op " + id + ")";
  }
}
