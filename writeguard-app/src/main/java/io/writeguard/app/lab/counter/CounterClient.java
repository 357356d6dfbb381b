package io.writeguard.app.lab.counter;

import io.writeguard.app.lab.ClientWorkload;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One client's seeded stream of increments and decrements on the run's hot balances (of the
 * current generation), and its record of what the server acknowledged: per operation id, what
 * it did to its balance (0 for a refused decrement), plus counts. Used by one client thread;
 * not thread-safe.
 */
final class CounterClient implements ClientWorkload<CounterOp> {
  /** Operation ids are {@code client << ID_BITS | sequence}: unique in the run. */
  static final int ID_BITS = 40;

  private final Generations generations;
  private final int counters;
  private final long client;
  private final long maxAmount;
  private final SplittableRandom random;
  private final Map<Long, Long> effects = new HashMap<>();
  private final Map<String, Long> netByBalance = new HashMap<>();
  private long sequence;
  private long increments;
  private long decrements;
  private long refused;

  CounterClient(Generations generations, int counters, int client, long maxAmount, long seed) {
    this.generations = generations;
    this.counters = counters;
    this.client = client;
    this.maxAmount = maxAmount;
    this.random = new SplittableRandom(seed);
  }

  @Override
  public CounterOp next() {
    long generation = generations.next();
    int counter = counters == 1 ? 0 : random.nextInt(counters);
    long amount = 1 + random.nextLong(maxAmount);
    boolean increment = random.nextDouble() < CounterScenario.INCREMENT_SHARE;
    return new CounterOp(client << ID_BITS | sequence++,
        Generations.counterId(generation, counter), counter, increment ? amount : -amount);
  }

  @Override
  public void acknowledged(CounterOp op) {
    if (effects.put(op.id(), op.effect()) != null) {
      throw new IllegalStateException("operation " + op + " acknowledged twice");
    }
    netByBalance.merge(op.counterId(), op.effect(), Long::sum);
    if (op.refused()) {
      refused++;
    } else if (op.isDecrement()) {
      decrements++;
    } else {
      increments++;
    }
  }

  /** Per acknowledged operation id, its effect on its balance. */
  Map<Long, Long> effects() {
    return effects;
  }

  /** Per balance id, the net of this client's acknowledged operations on it. */
  Map<String, Long> netByBalance() {
    return netByBalance;
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
