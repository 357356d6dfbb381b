package io.writeguard.app.lab.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.writeguard.internal.Checks;

/**
 * The numbers of the balance scenarios ({@code counter}, {@code transfer}): what every hot
 * balance (or account) starts with, the largest amount one operation moves (amounts are drawn
 * from {@code 1..maxAmount}), and how many shards the sharded counter strategies use. Other
 * scenarios ignore it. Part of what a scenario receives ({@link Scenario.ScenarioSettings}) and
 * written into the report as {@code balances}. Immutable.
 *
 * @param initialBalance starting balance of every balance or account, {@code >= 0}
 * @param maxAmount largest amount of one increment, decrement or transfer, {@code >= 1}
 * @param shards shards of the {@code sharded-*} counter strategies, {@code >= 1}
 */
public record BalanceSettings(
    @JsonProperty("initial_balance") long initialBalance,
    @JsonProperty("max_amount") long maxAmount,
    @JsonProperty("shards") int shards) {
  public static final long DEFAULT_INITIAL_BALANCE = 100;
  public static final long DEFAULT_MAX_AMOUNT = 10;
  public static final int DEFAULT_SHARDS = 10;
  public static final BalanceSettings DEFAULTS =
      new BalanceSettings(DEFAULT_INITIAL_BALANCE, DEFAULT_MAX_AMOUNT, DEFAULT_SHARDS);

  public BalanceSettings {
    Checks.atLeast("initialBalance", initialBalance, 0L);
    Checks.atLeast("maxAmount", maxAmount, 1L);
    Checks.atLeast("shards", shards, 1);
  }
}
