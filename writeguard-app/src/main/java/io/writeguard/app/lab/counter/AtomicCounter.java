package io.writeguard.app.lab.counter;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gte;

import com.mongodb.client.model.Updates;
import com.mongodb.client.result.UpdateResult;
import io.writeguard.app.lab.BalanceSettings;
import io.writeguard.app.lab.LabOperationException;
import io.writeguard.app.lab.StrategyContext;
import java.time.Duration;
import java.util.List;

/**
 * The baseline: one document, one {@code $inc} per operation. A decrement carries its
 * condition in the filter, {@code updateOne({_id, balance: {$gte: a}}, {$inc: {balance: -a}})},
 * so the server checks and takes in one atomic write and the balance can never go below
 * zero; matching nothing means the balance was short (the document always exists in the lab),
 * and the decrement is refused. The operation's ledger entry is pushed in the same write. No
 * read, no retry. Thread-safe (no state).
 */
final class AtomicCounter implements CounterStore {
  private final StrategyContext context;

  AtomicCounter(StrategyContext context) {
    this.context = context;
  }

  @Override
  public void open(List<String> counterIds, BalanceSettings balances) {
    SingleDocument.open(context.collection(), counterIds, balances.initialBalance());
  }

  @Override
  public void apply(CounterOp op) {
    long start = context.ticker().nanoTime();
    context.listener().onAttempt(context.scope(), op.counterId(), 1);
    if (op.isDecrement()) {
      UpdateResult r = context.collection().updateOne(
          and(eq("_id", op.counterId()), gte(CounterTotals.FIELD, op.magnitude())),
          Updates.combine(Updates.inc(CounterTotals.FIELD, op.amount()),
              op.recordChange(op.amount())));
      if (r.getMatchedCount() == 0) {
        op.refuse();
      }
    } else {
      UpdateResult r = context.collection().updateOne(eq("_id", op.counterId()),
          Updates.combine(Updates.inc(CounterTotals.FIELD, op.amount()),
              op.recordChange(op.amount())));
      if (r.getMatchedCount() != 1) {
        throw new LabOperationException("$inc on balance " + op.counterId() + " matched "
            + r.getMatchedCount() + " documents");
      }
    }
    context.listener().onSuccess(context.scope(), op.counterId(), 1,
        Duration.ofNanos(context.ticker().nanoTime() - start));
  }
}
