package io.writeguard.app.lab;

import java.util.Objects;

/**
 * What a scenario needs to know about the run: how many concurrent clients, how many hot
 * documents, the seed every client's operation stream is drawn from, and the numbers of the
 * balance scenarios. Immutable.
 */
public record ScenarioSettings(int clients, int docs, long seed, BalanceSettings balances) {
  public ScenarioSettings {
    Objects.requireNonNull(balances, "balances");
  }

  /** Settings with the default balances. */
  public ScenarioSettings(int clients, int docs, long seed) {
    this(clients, docs, seed, BalanceSettings.DEFAULTS);
  }
}
