package io.writeguard.app.lab.counter;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.app.lab.api.LabStrategy;
import io.writeguard.app.lab.api.Scenario.BalanceScenario;
import io.writeguard.app.lab.api.Scenario.ClientWorkload;
import io.writeguard.app.lab.api.Scenario.ScenarioRun;
import io.writeguard.app.lab.api.Scenario.ScenarioSettings;
import io.writeguard.app.lab.api.ScenarioEntry;
import io.writeguard.app.lab.counter.CounterRun.TotalReader;
import io.writeguard.app.lab.counter.CounterStrategies.AtomicCounter;
import io.writeguard.app.lab.counter.CounterStrategies.NaiveCounter;
import io.writeguard.app.lab.counter.CounterStrategies.OptimisticCounter;
import io.writeguard.app.lab.counter.CounterStrategies.ShardedCounterStrategy;
import io.writeguard.counter.CounterLayout;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The seed's hot {@code balance}: many clients add to and take from one balance (or
 * {@code --docs} balances), half increments and half decrements of 1 to {@code --max-amount}
 * units, starting from {@code --balance}. With an even mix the balance wanders and touches
 * zero now and then, so refused decrements and multi-shard combines happen throughout the
 * run, not only at its start. A reader samples the total meanwhile (see {@link TotalReader});
 * {@link CounterRun} says how losses are counted. Stateless and thread-safe.
 */
public final class CounterScenario implements BalanceScenario<CounterScenario.CounterOp> {
  public static final String NAME = "counter";
  /** Share of operations that are increments; the rest are decrements. */
  static final double INCREMENT_SHARE = 0.5;
  /** Balances at most; ids are {@code c0, c1, ...}. */
  static final int MAX_COUNTERS = 1024;

  /** The scenario with its strategies, in the order the lab runs them. */
  public static ScenarioEntry<CounterOp> entry() {
    return new ScenarioEntry<>(new CounterScenario(), List.of(
        new LabStrategy<>("naive", true,
            "find the balance, check and change it in Java, replaceOne (loses updates)",
            NaiveCounter::new),
        new LabStrategy<>("atomic", false,
            "one document, one $inc; a decrement is $inc filtered on balance >= amount",
            AtomicCounter::new),
        new LabStrategy<>("optimistic", false,
            "read {balance, version}, $set the new balance if the version is unchanged; retry",
            OptimisticCounter::new),
        new LabStrategy<>("sharded-fields", false,
            "ShardedCounter, shards as fields of one document (the seed's balance_shard_0..N)",
            ctx -> new ShardedCounterStrategy(ctx, CounterLayout.FIELDS)),
        new LabStrategy<>("sharded-docs", false,
            "ShardedCounter, one document per shard; multi-shard decrements drain under a lock",
            ctx -> new ShardedCounterStrategy(ctx, CounterLayout.DOCUMENTS))));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "clients add to and take from a hot balance that must never go below zero";
  }

  @Override
  public int defaultDocs() {
    return 1;
  }

  @Override
  public ScenarioRun<CounterOp> start(MongoCollection<Document> collection,
      ScenarioSettings settings) {
    if (settings.docs() > MAX_COUNTERS) {
      throw new IllegalArgumentException(
          "docs must be <= " + MAX_COUNTERS + ", was " + settings.docs());
    }
    return new CounterRun(collection, settings.docs(), settings.clients(), settings.balances());
  }

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
  public static final class CounterOp {
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

  /**
   * One client's seeded stream of increments and decrements on the run's hot balances (of the
   * current generation), and its record of what the server acknowledged: per operation id, what
   * it did to its balance (0 for a refused decrement), plus counts. Used by one client thread;
   * not thread-safe.
   */
  static final class CounterClient implements ClientWorkload<CounterOp> {
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

  /**
   * The run's hot balances, retired and replaced by fresh ones ({@code g<k>-c<i>}, each opened
   * at the starting balance) every {@code opsPerGeneration} operations.
   *
   * <p>Why generations: every operation leaves its id on a ledger in the document it changes
   * (see {@link CounterRun}). Left alone for a whole run a balance document would collect every
   * id of the run, hundreds of thousands, and every update would get slower as the run goes on
   * (the embedded server copies the whole document on each update; {@code naive} reads and
   * writes it back whole), so strategies would be compared on documents of different sizes. A
   * generation gives each balance {@code max(1024, 16 x clients)} operations: the ledger stays
   * some tens of KB, the balance still wanders far enough to reach zero (refusals, combines),
   * and at any moment all clients still hit the same {@code --docs} balances. An operation in
   * flight while the generation turns finishes on its own balance.
   *
   * <p>Thread-safe. Generation {@code g + 1} is opened by the first client to reach generation
   * {@code g}, so clients rarely wait for it; a client whose generation is not open yet waits.
   */
  static final class Generations {
    private final int counters;
    private final long opsPerGeneration;
    private final Consumer<List<String>> opener;
    private final AtomicLong sequence = new AtomicLong();
    private final ReentrantLock opening = new ReentrantLock();
    /** Generations {@code [0, opened)} exist; written only under {@link #opening}. */
    private volatile long opened;

    Generations(int counters, int clients, Consumer<List<String>> opener) {
      this.counters = counters;
      this.opsPerGeneration = (long) Math.max(1024, 16 * clients) * counters;
      this.opener = opener;
    }

    static String counterId(long generation, int counter) {
      return "g" + generation + "-c" + counter;
    }

    List<String> ids(long generation) {
      return IntStream.range(0, counters).mapToObj(c -> counterId(generation, c)).toList();
    }

    /** The generation the next operation goes to; makes sure its balances are open. */
    long next() {
      long generation = sequence.getAndIncrement() / opsPerGeneration;
      ensure(generation);
      return generation;
    }

    /** The newest generation clients are writing (the reader samples it). */
    long current() {
      return Math.max(0, Math.min(sequence.get() / opsPerGeneration, opened - 1));
    }

    /** Generations operations went to: {@code 0 .. used() - 1} (at least 1). */
    long used() {
      long handedOut = sequence.get();
      return handedOut == 0 ? 1 : (handedOut - 1) / opsPerGeneration + 1;
    }

    /** Generations opened so far: {@code 0 .. opened() - 1}. */
    long opened() {
      return opened;
    }

    void ensure(long generation) {
      long wanted = generation + 2;
      if (opened >= wanted) {
        return;
      }
      if (opened > generation) {
        if (opening.tryLock()) { // ours is open; open the next unless someone else is
          try {
            openUpTo(wanted);
          } finally {
            opening.unlock();
          }
        }
        return;
      }
      opening.lock();
      try {
        openUpTo(wanted);
      } finally {
        opening.unlock();
      }
    }

    private void openUpTo(long wanted) {
      while (opened < wanted) {
        opener.accept(ids(opened));
        opened = opened + 1;
      }
    }
  }
}
