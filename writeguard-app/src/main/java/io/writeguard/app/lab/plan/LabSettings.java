package io.writeguard.app.lab.plan;

import io.writeguard.app.lab.api.BalanceSettings;
import io.writeguard.app.lab.api.Scenario.ScenarioSettings;
import io.writeguard.internal.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * How long and how hard every strategy of one lab run is driven. Immutable; the same settings
 * apply to every strategy, so their results compare.
 *
 * @param clients concurrent clients (threads), each a distinct user
 * @param docs hot documents at a time
 * @param seed seed of every client's operation stream
 * @param duration how long each strategy is measured, or null when {@code ops} is set
 * @param ops operations per strategy across all clients, or 0 when {@code duration} is set
 * @param warmup unmeasured run of each strategy before its measurement, on other documents
 *     (zero for none)
 * @param rounds measured rounds per strategy, interleaved (round 1 of every strategy, then
 *     round 2, ...); results are the medians (see
 *     {@code RoundMedians})
 * @param balances the numbers of the balance scenarios (counter, transfer)
 * @param groupCommit whether the strategies that can combine concurrent updates of one
 *     document (optimistic, adaptive, the lock strategies) do so
 */
public record LabSettings(
    int clients, int docs, long seed, Duration duration, long ops, Duration warmup,
    int rounds, BalanceSettings balances, boolean groupCommit) {
  public LabSettings {
    Checks.atLeast("clients", clients, 1);
    Checks.atLeast("docs", docs, 1);
    Checks.notNegative("warmup", warmup);
    Checks.atLeast("rounds", rounds, 1);
    Objects.requireNonNull(balances, "balances");
    if ((duration == null) == (ops == 0)) {
      throw new IllegalArgumentException(
          "exactly one of duration and ops must be set, was duration=" + duration + " ops=" + ops);
    }
    if (duration != null) {
      Checks.positive("duration", duration);
    } else {
      Checks.atLeast("ops", ops, 1);
    }
  }

  /** Runs for {@code duration} per strategy. */
  public static LabSettings timed(int clients, int docs, long seed, Duration duration, Duration warmup) {
    return new LabSettings(clients, docs, seed, Objects.requireNonNull(duration, "duration"), 0,
        warmup, 1, BalanceSettings.DEFAULTS, true);
  }

  /** Runs {@code ops} operations per strategy. */
  public static LabSettings counted(int clients, int docs, long seed, long ops, Duration warmup) {
    return new LabSettings(clients, docs, seed, null, ops, warmup, 1, BalanceSettings.DEFAULTS,
        true);
  }

  /** The same settings with {@code clients} clients (one point of a sweep). */
  public LabSettings withClients(int clients) {
    return new LabSettings(clients, docs, seed, duration, ops, warmup, rounds, balances,
        groupCommit);
  }

  /** The same settings measured over {@code rounds} interleaved rounds. */
  public LabSettings withRounds(int rounds) {
    return new LabSettings(clients, docs, seed, duration, ops, warmup, rounds, balances,
        groupCommit);
  }

  /** The same settings with other balance-scenario numbers. */
  public LabSettings withBalances(BalanceSettings balances) {
    return new LabSettings(clients, docs, seed, duration, ops, warmup, rounds, balances,
        groupCommit);
  }

  /**
   * The same settings with group commit on or off for every strategy that has it (on by
   * default, as in the library).
   */
  public LabSettings withGroupCommit(boolean groupCommit) {
    return new LabSettings(clients, docs, seed, duration, ops, warmup, rounds, balances,
        groupCommit);
  }

  public ScenarioSettings scenarioSettings() {
    return new ScenarioSettings(clients, docs, seed, balances);
  }
}
