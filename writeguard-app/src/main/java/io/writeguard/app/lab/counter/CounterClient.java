package io.writeguard.app.lab.counter;

import io.writeguard.app.lab.ClientWorkload;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One client's seeded stream of increments and decrements on the run's hot balances, and its
 * ledger of what the server acknowledged: per balance, the amounts added and taken, and the
 * decrements refused. Used by one client thread; not thread-safe.
 */
final class CounterClient implements ClientWorkload<CounterOp> {
  private final List<String> counterIds;
  private final long maxAmount;
  private final SplittableRandom random;
  private final long[] added;
  private final long[] taken;
  private long increments;
  private long decrements;
  private long refused;

  CounterClient(List<String> counterIds, long maxAmount, long seed) {
    this.counterIds = counterIds;
    this.maxAmount = maxAmount;
    this.random = new SplittableRandom(seed);
    this.added = new long[counterIds.size()];
    this.taken = new long[counterIds.size()];
  }

  @Override
  public CounterOp next() {
    int counter = counterIds.size() == 1 ? 0 : random.nextInt(counterIds.size());
    long amount = 1 + random.nextLong(maxAmount);
    boolean increment = random.nextDouble() < CounterScenario.INCREMENT_SHARE;
    return new CounterOp(counterIds.get(counter), counter, increment ? amount : -amount);
  }

  @Override
  public void acknowledged(CounterOp op) {
    if (op.refused()) {
      refused++;
    } else if (op.isDecrement()) {
      taken[op.counter()] += op.magnitude();
      decrements++;
    } else {
      added[op.counter()] += op.magnitude();
      increments++;
    }
  }

  long added(int counter) {
    return added[counter];
  }

  long taken(int counter) {
    return taken[counter];
  }

  long increments() {
    return increments;
  }

  long decrements() {
    return decrements;
  }

  long refused() {
    return refused;
  }
}
