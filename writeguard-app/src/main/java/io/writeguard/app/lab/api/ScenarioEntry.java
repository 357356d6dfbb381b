package io.writeguard.app.lab.api;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A scenario and the strategies that can run it, in the order the lab runs and prints them:
 * what a scenario package hands to the lab's registry ({@code io.writeguard.app.lab.Scenarios}).
 * Immutable and thread-safe.
 */
public final class ScenarioEntry<O> {
  private final Scenario<O> scenario;
  private final Map<String, LabStrategy<O>> strategies;
  private final List<String> order;

  /**
   * @throws IllegalArgumentException when {@code strategies} is empty or names one strategy
   *     twice
   */
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

  /** The strategy registered as {@code name}, if there is one. */
  public Optional<LabStrategy<O>> strategy(String name) {
    return Optional.ofNullable(strategies.get(name));
  }
}
