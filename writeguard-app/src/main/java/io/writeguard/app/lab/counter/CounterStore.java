package io.writeguard.app.lab.counter;

import io.writeguard.app.lab.BalanceSettings;
import io.writeguard.app.lab.Strategy;
import java.util.List;

/**
 * A counter strategy: applies increments and decrements, and lays out the balances' starting
 * documents the way it stores them (one document, shard fields, shard documents). Thread-safe
 * like every {@link Strategy}.
 */
public interface CounterStore extends Strategy<CounterOp> {

  /**
   * Creates the balances {@code counterIds}, each holding {@code balances.initialBalance()},
   * using {@code balances.shards()} shards where the layout has shards. Called once, before
   * any client thread starts (so whatever it sets up is visible to the clients).
   */
  void open(List<String> counterIds, BalanceSettings balances);
}
