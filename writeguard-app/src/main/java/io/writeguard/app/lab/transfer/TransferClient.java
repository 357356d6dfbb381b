package io.writeguard.app.lab.transfer;

import io.writeguard.app.lab.ClientWorkload;
import java.util.SplittableRandom;

/**
 * One client's seeded stream of transfers between random accounts, and its ledger of what was
 * acknowledged: each account's net change, the transfers done and refused. Used by one client
 * thread; not thread-safe.
 */
final class TransferClient implements ClientWorkload<TransferOp> {
  private final int accounts;
  private final long maxAmount;
  private final SplittableRandom random;
  private final long[] change;
  private long transfers;
  private long refused;
  private long moved;

  TransferClient(int accounts, long maxAmount, long seed) {
    this.accounts = accounts;
    this.maxAmount = maxAmount;
    this.random = new SplittableRandom(seed);
    this.change = new long[accounts];
  }

  @Override
  public TransferOp next() {
    int from = random.nextInt(accounts);
    int to = random.nextInt(accounts - 1);
    if (to >= from) {
      to++; // uniform over the other accounts
    }
    return new TransferOp(from, to, 1 + random.nextLong(maxAmount));
  }

  @Override
  public void acknowledged(TransferOp op) {
    if (op.refused()) {
      refused++;
      return;
    }
    change[op.from()] -= op.amount();
    change[op.to()] += op.amount();
    transfers++;
    moved += op.amount();
  }

  long change(int account) {
    return change[account];
  }

  long transfers() {
    return transfers;
  }

  long refused() {
    return refused;
  }

  long moved() {
    return moved;
  }
}
