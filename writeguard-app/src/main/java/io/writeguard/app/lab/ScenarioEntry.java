package io.writeguard.app.lab;

import io.writeguard.app.cli.UsageException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A scenario and the strategies that can run it, in the order the lab runs and prints them.
 * Immutable and thread-safe.
 */
public final class ScenarioEntry<O> {
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
