package io.writeguard.counter;

/**
 * Combines field shards with one conditional update: read the document, plan which shards to
 * take from, then {@code updateOne({_id, s_i: {$gte: take_i}...}, {$inc: {s_i: -take_i...}})}.
 * The read of one document is atomic, so "insufficient" is decided on a consistent total; the
 * update re-checks every shard it touches, so a concurrent decrement that got there first
 * makes it match nothing (re-read and re-plan, bounded), never go negative. Needs no lock, and
 * a crash can never leave half a decrement behind. Thread-safe.
 */
final class AtomicFieldsCombiner implements Combiner {
  private final FieldShardStore store;
  private final int maxAttempts;

  AtomicFieldsCombiner(FieldShardStore store, int maxAttempts) {
    this.store = store;
    this.maxAttempts = maxAttempts;
  }

  @Override
  public DecrementResult combine(String counterId, long amount, int shardAlreadyTried,
      ChangeRecorder recorder) {
    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
      long[] values = store.read(counterId);
      long total = ShardValue.total(counterId, values);
      if (total < amount) {
        throw new InsufficientBalanceException(counterId, amount, total);
      }
      long[] take = ShardPlans.plan(values, amount);
      if (store.tryTakeAll(counterId, take, recorder)) {
        int used = ShardPlans.countPositive(take);
        return new DecrementResult(amount, used, used > 1);
      }
    }
    throw new CounterContentionException(counterId, amount, maxAttempts);
  }
}
