package io.writeguard.app.lab.counter;

import com.mongodb.client.MongoCollection;
import io.writeguard.app.lab.BalanceScenario;
import io.writeguard.app.lab.LabStrategy;
import io.writeguard.app.lab.ScenarioEntry;
import io.writeguard.app.lab.ScenarioRun;
import io.writeguard.app.lab.ScenarioSettings;
import io.writeguard.counter.CounterLayout;
import java.util.List;
import org.bson.Document;

/**
 * The seed's hot {@code balance}: many clients add to and take from one balance (or
 * {@code --docs} balances), half increments and half decrements of 1 to {@code --max-amount}
 * units, starting from {@code --balance}. With an even mix the balance wanders and touches
 * zero now and then, so refused decrements and multi-shard combines happen throughout the
 * run, not only at its start. A reader samples the total meanwhile (see {@link TotalReader});
 * {@link CounterRun} says how losses are counted. Stateless and thread-safe.
 */
public final class CounterScenario implements BalanceScenario<CounterOp> {
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
}
