package io.writeguard.app.lab;

import java.util.List;
import java.util.Objects;

/** A scenario and the strategies one lab run measures on it, in order. Immutable. */
public record LabPlan<O>(Scenario<O> scenario, List<LabStrategy<O>> strategies) {
  public LabPlan {
    Objects.requireNonNull(scenario, "scenario");
    strategies = List.copyOf(strategies);
    if (strategies.isEmpty()) {
      throw new IllegalArgumentException("a plan needs at least one strategy");
    }
  }
}
