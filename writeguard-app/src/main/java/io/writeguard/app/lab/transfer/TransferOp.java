package io.writeguard.app.lab.transfer;

/**
 * Move {@code amount} from account {@code from} to account {@code to} (two different
 * accounts). A transfer the source cannot cover is <em>refused</em>: the strategy calls
 * {@link #refuse()} and returns normally (a correct answer, not an error; nothing moves).
 * Created by one client for one call and used on that client's thread only; not thread-safe.
 */
public final class TransferOp {
  private final int from;
  private final int to;
  private final long amount;
  private boolean refused;

  TransferOp(int from, int to, long amount) {
    if (from == to) {
      throw new IllegalArgumentException("a transfer needs two accounts, was " + from + " twice");
    }
    if (amount < 1) {
      throw new IllegalArgumentException("amount must be >= 1, was " + amount);
    }
    this.from = from;
    this.to = to;
    this.amount = amount;
  }

  /** The source account's document id. */
  public String fromId() {
    return TransferRun.accountId(from);
  }

  /** The destination account's document id. */
  public String toId() {
    return TransferRun.accountId(to);
  }

  int from() {
    return from;
  }

  int to() {
    return to;
  }

  public long amount() {
    return amount;
  }

  /** Called by a strategy when the source account could not cover the amount. */
  public void refuse() {
    refused = true;
  }

  public boolean refused() {
    return refused;
  }

  @Override
  public String toString() {
    return "transfer " + amount + " from " + fromId() + " to " + toId();
  }
}
