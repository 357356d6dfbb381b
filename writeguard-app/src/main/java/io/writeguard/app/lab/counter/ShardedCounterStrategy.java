package io.writeguard.app.lab.counter;

import io.writeguard.app.lab.BalanceSettings;
import io.writeguard.app.lab.StrategyContext;
import io.writeguard.counter.CounterLayout;
import io.writeguard.counter.DecrementResult;
import io.writeguard.counter.InsufficientBalanceException;
import io.writeguard.counter.ShardedCounter;
import io.writeguard.lock.LocalLockService;
import java.time.Duration;
import java.util.List;

/**
 * The balance as a {@link ShardedCounter} (core library) in one of its layouts: an increment
 * is one {@code $inc} on a random shard; a decrement takes from one random shard with a
 * conditional {@code $inc}, and combines shards when that one holds too little (fields: one
 * atomic conditional update; documents: a drain under an in-process lock). The counter's own
 * {@link InsufficientBalanceException} is a refusal.
 *
 * <p>Reported to the lab: one attempt per operation, and a decrement that had to combine
 * counts as a retry (its first try missed). A balance opens with its whole starting amount on
 * one shard, as a counter that has just been credited would.
 *
 * <p>Every write the counter makes for an operation carries the operation's ledger entry
 * ({@link io.writeguard.counter.ChangeRecorder}): an increment's {@code +a}, a drain's take
 * from each shard and, for a refused decrement, each give-back.
 *
 * <p>Thread-safe: the counter is built in the first {@link #open}, before the client threads
 * start (thread start publishes it), and never changed after; later calls (new generations)
 * only increment.
 */
final class ShardedCounterStrategy implements CounterStore {
  private final StrategyContext context;
  private final CounterLayout layout;
  private ShardedCounter counter;

  ShardedCounterStrategy(StrategyContext context, CounterLayout layout) {
    this.context = context;
    this.layout = layout;
  }

  @Override
  public void open(List<String> counterIds, BalanceSettings balances) {
    if (counter == null) { // the first call, before the client threads start
      counter = build(balances);
    }
    if (balances.initialBalance() > 0) {
      counterIds.forEach(id -> counter.increment(id, balances.initialBalance()));
    }
  }

  private ShardedCounter build(BalanceSettings balances) {
    return ShardedCounter.builder(context.collection())
        .layout(layout)
        .shards(balances.shards())
        .field(CounterTotals.FIELD)
        .lockService(LocalLockService.builder().listener(context.listener()).build())
        .lockWaitTimeout(Duration.ofSeconds(10))
        .build();
  }

  @Override
  public void apply(CounterOp op) {
    if (counter == null) {
      throw new IllegalStateException("open() was not called before apply()");
    }
    long start = context.ticker().nanoTime();
    context.listener().onAttempt(context.scope(), op.counterId(), 1);
    int attempts = 1;
    if (op.isDecrement()) {
      try {
        DecrementResult r = counter.decrement(op.counterId(), op.magnitude(), op::recordChange);
        if (r.combined()) {
          context.listener().onRetry(context.scope(), op.counterId(), 1, Duration.ZERO);
          context.listener().onAttempt(context.scope(), op.counterId(), 2);
          attempts = 2;
        }
      } catch (InsufficientBalanceException e) {
        op.refuse();
      }
    } else {
      counter.increment(op.counterId(), op.magnitude(), op::recordChange);
    }
    context.listener().onSuccess(context.scope(), op.counterId(), attempts,
        Duration.ofNanos(context.ticker().nanoTime() - start));
  }
}
