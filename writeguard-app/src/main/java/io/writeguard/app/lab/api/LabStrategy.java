package io.writeguard.app.lab.api;

import io.writeguard.app.lab.api.Strategy.StrategyContext;
import io.writeguard.app.lab.api.Strategy.StrategyFactory;
import io.writeguard.internal.Checks;
import java.util.Objects;

/**
 * A strategy as a scenario registers it (in its {@link ScenarioEntry}): what the lab's options,
 * table and exit rules need to know about it, and the factory that makes one per run. Immutable.
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
