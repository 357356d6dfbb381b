package io.writeguard.app.lab;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.writeguard.app.cli.UsageException;
import io.writeguard.app.lab.Scenario.ScenarioSettings;
import io.writeguard.app.lab.Strategy.StrategyContext;
import io.writeguard.app.lab.Strategy.StrategyFactory;
import io.writeguard.app.lab.StrategyStats.RoundMedians;
import io.writeguard.app.lab.counter.CounterScenario;
import io.writeguard.app.lab.readinfo.ReadInfoScenario;
import io.writeguard.app.lab.transfer.TransferScenario;
import io.writeguard.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A scenario and the strategies one lab run measures on it, in order. Immutable.
 *
 * <p>This file holds everything that says what a run will do, before it does it: the
 * {@link LabSettings} (clients, documents, duration or operations, rounds, warm-up),
 * the {@link BalanceSettings} of the balance scenarios, the {@link LabRegistry} of scenarios
 * and their strategies ({@link ScenarioEntry}, {@link LabStrategy}), and where a running lab
 * is ({@link LabStep}, {@link LabSchedule}).
 */
public record LabPlan<O>(Scenario<O> scenario, List<LabStrategy<O>> strategies) {
  public LabPlan {
    Objects.requireNonNull(scenario, "scenario");
    strategies = List.copyOf(strategies);
    if (strategies.isEmpty()) {
      throw new IllegalArgumentException("a plan needs at least one strategy");
    }
  }

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
   *     round 2, ...); results are the medians (see {@link RoundMedians})
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

  /**
   * The numbers of the balance scenarios ({@code counter}, {@code transfer}): what every hot
   * balance (or account) starts with, the largest amount one operation moves (amounts are drawn
   * from {@code 1..maxAmount}), and how many shards the sharded counter strategies use. Other
   * scenarios ignore it. Immutable.
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

  /**
   * Which measurement the lab is at: a strategy, at a client count, in a round, and where that
   * is in the whole run. Immutable.
   *
   * @param round 1-based
   * @param position the strategy's place in this round's order, 1-based; 0 when unknown
   * @param strategies how many strategies the round measures; 0 when unknown
   * @param timeLeftNanos the estimated time until the whole run is done; negative when
   *     unknown (see {@link LabSchedule})
   */
  public record LabStep(String strategy, int clients, int round, int rounds, int position,
      int strategies, long timeLeftNanos) {

    /** A step that does not know its place in the run. */
    public LabStep(String strategy, int clients, int round, int rounds) {
      this(strategy, clients, round, rounds, 0, 0, -1);
    }

    /** The same step with another estimate of the time left. */
    public LabStep withTimeLeft(long nanos) {
      return new LabStep(strategy, clients, round, rounds, position, strategies, nanos);
    }

    /**
     * {@code strategy 2 of 7, about 1m05s left}, or the part of it that is known, or "".
     */
    public String placeInRun() {
      String where = position > 0 && strategies > 1
          ? "strategy " + position + " of " + strategies : "";
      String left = timeLeftNanos >= 0 ? "about " + LabSchedule.format(timeLeftNanos) + " left"
          : "";
      return where.isEmpty() || left.isEmpty() ? where + left : where + ", " + left;
    }
  }

  /**
   * The phases of a whole lab run, to tell how long it will take and how much of it is left:
   * at every client count, every strategy's warm-up, then its rounds.
   *
   * <p>The time left is the phases still to run times what such a phase has taken so far (its
   * set-up and counting included), plus what the current phase still has to go. Before any
   * phase of a kind has finished, a timed phase is taken at its configured length; a phase
   * counted by {@code --ops} has no length until one has run, and the estimate is unknown
   * until then. Used by the runner's thread only; not thread-safe.
   */
  public static final class LabSchedule {
    private final long warmupNanos;
    private final long measureNanos;
    private final int warmups;
    private final int measures;
    private int warmupsDone;
    private int measuresDone;
    private long warmupWall;
    private long measureWall;

    /**
     * The schedule of {@code strategies} strategies under {@code settings} at
     * {@code clientCounts} client counts.
     */
    public LabSchedule(LabSettings settings, int strategies, int clientCounts) {
      Checks.atLeast("strategies", strategies, 1);
      Checks.atLeast("clientCounts", clientCounts, 1);
      this.warmupNanos = settings.warmup().toNanos();
      this.measureNanos = settings.duration() == null ? 0 : settings.duration().toNanos();
      this.warmups = warmupNanos == 0 ? 0 : strategies * clientCounts;
      this.measures = strategies * settings.rounds() * clientCounts;
    }

    /** Measured rounds of the whole run, every strategy and client count together. */
    public int measuredRounds() {
      return measures;
    }

    /**
     * Warm-up and measuring time of the whole run by the settings, without set-up and
     * counting; empty when the rounds are counted by {@code --ops}.
     */
    public Optional<Duration> planned() {
      return measureNanos == 0 ? Optional.empty()
          : Optional.of(Duration.ofNanos(warmups * warmupNanos + measures * measureNanos));
    }

    /** A phase ended after {@code wallNanos}, set-up and counting included. */
    void finished(boolean warmup, long wallNanos) {
      if (warmup) {
        warmupsDone++;
        warmupWall += wallNanos;
      } else {
        measuresDone++;
        measureWall += wallNanos;
      }
    }

    /**
     * The estimated time left while a phase of kind {@code warmup} has been running for
     * {@code elapsedNanos}; negative when it cannot be told yet.
     */
    long timeLeftNanos(boolean warmup, long elapsedNanos) {
      long perWarmup = warmupsDone > 0 ? warmupWall / warmupsDone : warmupNanos;
      long perMeasure = measuresDone > 0 ? measureWall / measuresDone : measureNanos;
      if (perMeasure == 0 && measures - measuresDone > 0) {
        return -1; // counted rounds, none finished yet: no idea how long one takes
      }
      int warmupsAfter = Math.max(0, warmups - warmupsDone - (warmup ? 1 : 0));
      int measuresAfter = Math.max(0, measures - measuresDone - (warmup ? 0 : 1));
      long current = Math.max(0, (warmup ? perWarmup : perMeasure) - elapsedNanos);
      return warmupsAfter * perWarmup + measuresAfter * perMeasure + current;
    }

    /** The estimated time left between two phases; negative when it cannot be told yet. */
    long timeLeftNanos() {
      long perWarmup = warmupsDone > 0 ? warmupWall / warmupsDone : warmupNanos;
      long perMeasure = measuresDone > 0 ? measureWall / measuresDone : measureNanos;
      int measuresLeft = Math.max(0, measures - measuresDone);
      if (perMeasure == 0 && measuresLeft > 0) {
        return -1;
      }
      return Math.max(0, warmups - warmupsDone) * perWarmup + measuresLeft * perMeasure;
    }

    /** {@code 45s}, {@code 1m05s}, {@code 1h02m}: rounded to the second, for progress lines. */
    public static String format(long nanos) {
      long s = Math.max(0, Math.round(nanos / 1e9));
      if (s < 60) {
        return s + "s";
      }
      if (s < 3600) {
        return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
      }
      return String.format(Locale.ROOT, "%dh%02dm", s / 3600, s % 3600 / 60);
    }
  }

  /**
   * A strategy as the registry knows it.
   *
   * @param name the name used by {@code --strategies}
   * @param reproducesLoss true for strategies that exist to show the problem ({@code naive}):
   *     their lost updates are expected and do not fail the run
   * @param description one line for {@code --help} and {@code docs/lab.md}
   * @param needsRedis true when the strategy uses Redis: the lab then connects to
   *     {@code --redis-uri} (or starts an embedded Redis) and hands it over in
   *     {@link StrategyContext#services()}
   */
  public record LabStrategy<O>(String name, boolean reproducesLoss, String description,
      StrategyFactory<O> factory, boolean needsRedis) {
    public LabStrategy {
      Checks.notBlank("name", name);
      Objects.requireNonNull(description, "description");
      Objects.requireNonNull(factory, "factory");
    }

    /** A strategy that needs no Redis. */
    public LabStrategy(String name, boolean reproducesLoss, String description,
        StrategyFactory<O> factory) {
      this(name, reproducesLoss, description, factory, false);
    }
  }

  /**
   * A scenario and the strategies that can run it, in the order the lab runs and prints them.
   * Immutable and thread-safe.
   */
  public static final class ScenarioEntry<O> {
    private final Scenario<O> scenario;
    private final Map<String, LabStrategy<O>> strategies;
    private final List<String> order;

    public ScenarioEntry(Scenario<O> scenario, List<LabStrategy<O>> strategies) {
      this.scenario = Objects.requireNonNull(scenario, "scenario");
      Map<String, LabStrategy<O>> byName = new LinkedHashMap<>();
      for (LabStrategy<O> s : strategies) {
        if (byName.putIfAbsent(s.name(), s) != null) {
          throw new IllegalArgumentException(
              "strategy names must be unique in scenario " + scenario.name() + ", was '"
                  + s.name() + "' twice");
        }
      }
      if (byName.isEmpty()) {
        throw new IllegalArgumentException("scenario " + scenario.name() + " has no strategies");
      }
      this.strategies = Map.copyOf(byName);
      this.order = List.copyOf(byName.keySet());
    }

    public Scenario<O> scenario() {
      return scenario;
    }

    /** Every strategy's name, in run order. */
    public List<String> strategyNames() {
      return order;
    }

    /**
     * The strategies named, in the order given; every strategy when {@code names} is empty.
     *
     * @throws UsageException naming an unknown or repeated strategy and listing the known ones
     */
    public LabPlan<O> plan(List<String> names) {
      List<LabStrategy<O>> chosen = new ArrayList<>();
      if (names.isEmpty()) {
        order.forEach(n -> chosen.add(strategies.get(n)));
        return new LabPlan<>(scenario, chosen);
      }
      for (String name : names) {
        LabStrategy<O> s = strategies.get(name);
        if (s == null) {
          throw new UsageException("unknown strategy '" + name + "' for scenario "
              + scenario.name() + " (known: " + String.join(", ", order) + ")");
        }
        if (chosen.contains(s)) {
          throw new UsageException("strategy '" + name + "' is listed twice");
        }
        chosen.add(s);
      }
      return new LabPlan<>(scenario, chosen);
    }
  }

  /**
   * The scenarios the lab knows, each with its strategies. A new scenario or strategy is one
   * entry here (or in its scenario's {@code entry()}), nothing else. Immutable and thread-safe.
   */
  public static final class LabRegistry {
    private final Map<String, ScenarioEntry<?>> scenarios;

    public LabRegistry(List<ScenarioEntry<?>> entries) {
      Map<String, ScenarioEntry<?>> byName = new LinkedHashMap<>();
      for (ScenarioEntry<?> e : entries) {
        if (byName.putIfAbsent(e.scenario().name(), e) != null) {
          throw new IllegalArgumentException(
              "scenario names must be unique, was '" + e.scenario().name() + "' twice");
        }
      }
      this.scenarios = byName;
    }

    /** The scenarios and strategies that ship with WriteGuard. */
    public static LabRegistry standard() {
      return new LabRegistry(List.of(ReadInfoScenario.entry(), CounterScenario.entry(),
          TransferScenario.entry()));
    }

    /** Every scenario's name, in registration order. */
    public List<String> scenarioNames() {
      return List.copyOf(scenarios.keySet());
    }

    /** @throws UsageException naming the unknown scenario and listing the known ones */
    public ScenarioEntry<?> scenario(String name) {
      ScenarioEntry<?> entry = scenarios.get(name);
      if (entry == null) {
        throw new UsageException("unknown scenario '" + name + "' (known: "
            + String.join(", ", scenarios.keySet()) + ")");
      }
      return entry;
    }
  }
}
