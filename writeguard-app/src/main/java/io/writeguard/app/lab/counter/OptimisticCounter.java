package io.writeguard.app.lab.counter;

import com.mongodb.client.model.Updates;
import io.writeguard.app.lab.BalanceSettings;
import io.writeguard.app.lab.StrategyContext;
import io.writeguard.update.Mutation;
import io.writeguard.update.RetryPolicy;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import java.util.List;

/**
 * The balance as a versioned read-change-write ({@link VersionedUpdater}): read
 * {@code {balance, version}}, compute the new balance in Java, {@code $set} it filtered on the
 * version read (with {@code $inc: {version: 1}} and the operation's ledger entry); a miss is a conflict, retried from a fresh
 * read with full-jitter backoff. A decrement the balance read cannot cover ends the update
 * without writing and is refused; that decision is taken on the last, fresh read.
 *
 * <p>The retry policy is the one the {@code readinfo} lab chose by measurement (30 attempts,
 * 10 s, backoff 5 ms doubling to 500 ms; docs/lab.md). Thread-safe: the updater is.
 */
final class OptimisticCounter implements CounterStore {
  static final RetryPolicy POLICY = RetryPolicy.builder()
      .maxAttempts(30)
      .deadline(Duration.ofSeconds(10))
      .backoff(Duration.ofMillis(5), Duration.ofMillis(500))
      .build();

  private final StrategyContext context;
  private final VersionedUpdater updater;

  OptimisticCounter(StrategyContext context) {
    this.context = context;
    this.updater = VersionedUpdater.builder(context.collection())
        .retryPolicy(POLICY)
        .listener(context.listener())
        .strategyName(context.scope().strategy())
        .ticker(context.ticker())
        .build();
  }

  @Override
  public void open(List<String> counterIds, BalanceSettings balances) {
    SingleDocument.open(context.collection(), counterIds, balances.initialBalance());
  }

  @Override
  public void apply(CounterOp op) {
    try {
      updater.updateOne(op.counterId(), current -> {
        long balance = SingleDocument.balance(current);
        if (op.isDecrement() && balance < op.magnitude()) {
          throw new Refused(); // pure: ends this update, nothing written
        }
        return Mutation.update(Updates.combine(
            Updates.set(CounterTotals.FIELD, balance + op.amount()),
            op.recordChange(op.amount())));
      });
    } catch (Refused e) {
      op.refuse();
    }
  }
}
