package io.writeguard.app.lab;

import io.writeguard.app.cli.UsageException;
import io.writeguard.app.lab.api.ScenarioEntry;
import io.writeguard.app.lab.counter.CounterScenario;
import io.writeguard.app.lab.plan.LabPlan;
import io.writeguard.app.lab.readinfo.ReadInfoScenario;
import io.writeguard.app.lab.transfer.TransferScenario;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The scenarios the lab knows, each with its strategies: the one place where the lab meets the
 * scenario packages. A new scenario is one package written against {@code lab.api} and one
 * entry in {@link #standard()}; a new strategy is one entry in its scenario's {@code entry()}.
 * Immutable and thread-safe.
 */
public final class Scenarios {
  private final Map<String, ScenarioEntry<?>> scenarios;

  /**
   * The lab with these scenarios (tests, extensions).
   *
   * @throws IllegalArgumentException when two entries have the same scenario name
   */
  public Scenarios(List<ScenarioEntry<?>> entries) {
    Map<String, ScenarioEntry<?>> byName = new LinkedHashMap<>();
    for (ScenarioEntry<?> e : entries) {
      if (byName.putIfAbsent(e.scenario().name(), e) != null) {
        throw new IllegalArgumentException(
            "scenario names must be unique, was '" + e.scenario().name() + "' twice");
      }
    }
    this.scenarios = byName;
  }

  /** The scenarios and strategies that ship with WriteGuard, in the order they are listed. */
  public static Scenarios standard() {
    return new Scenarios(List.of(ReadInfoScenario.entry(), CounterScenario.entry(),
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

  /**
   * Scenario {@code scenario} with the strategies named, in the order given; every strategy
   * when {@code strategies} is empty.
   *
   * @throws UsageException naming an unknown scenario, or an unknown or repeated strategy
   */
  public LabPlan<?> plan(String scenario, List<String> strategies) {
    return LabPlan.of(scenario(scenario), strategies);
  }

  /** The names of the scenarios whose clients can be spread over processes, in order. */
  List<String> countingPerProcess() {
    return scenarios.values().stream().filter(e -> e.scenario().countsPerProcess())
        .map(e -> e.scenario().name()).toList();
  }
}
