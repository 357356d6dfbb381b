package io.writeguard.app.lab.plan;

import io.writeguard.app.cli.UsageException;
import io.writeguard.app.lab.api.LabStrategy;
import io.writeguard.app.lab.api.Scenario;
import io.writeguard.app.lab.api.ScenarioEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A scenario and the strategies one lab run measures on it, in order. Immutable.
 *
 * <p>With {@link LabSettings}, this package says what a run will do before it does it; it knows
 * the scenario contract ({@code lab.api}) and nothing of how a run goes.
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
   * The strategies of {@code entry} named, in the order given; every strategy when
   * {@code names} is empty.
   *
   * @throws UsageException naming an unknown or repeated strategy and listing the known ones
   */
  public static <O> LabPlan<O> of(ScenarioEntry<O> entry, List<String> names) {
    Scenario<O> scenario = entry.scenario();
    List<LabStrategy<O>> chosen = new ArrayList<>();
    if (names.isEmpty()) {
      entry.strategyNames().forEach(n -> chosen.add(entry.strategy(n).orElseThrow()));
      return new LabPlan<>(scenario, chosen);
    }
    for (String name : names) {
      LabStrategy<O> s = entry.strategy(name).orElseThrow(() -> new UsageException(
          "unknown strategy '" + name + "' for scenario " + scenario.name() + " (known: "
              + String.join(", ", entry.strategyNames()) + ")"));
      if (chosen.contains(s)) {
        throw new UsageException("strategy '" + name + "' is listed twice");
      }
      chosen.add(s);
    }
    return new LabPlan<>(scenario, chosen);
  }
}
