package io.writeguard.app.lab;

import io.writeguard.app.cli.UsageException;
import io.writeguard.app.lab.counter.CounterScenario;
import io.writeguard.app.lab.readinfo.ReadInfoScenario;
import io.writeguard.app.lab.transfer.TransferScenario;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The scenarios the lab knows, each with its strategies. A new scenario or strategy is one
 * entry here (or in its scenario's {@code entry()}), nothing else. Immutable and thread-safe.
 */
public final class LabRegistry {
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
