package io.writeguard.app.lab;

/** Creates a fresh {@link Strategy} for one run (so no state leaks between runs). */
@FunctionalInterface
public interface StrategyFactory<O> {
  Strategy<O> create(StrategyContext context);
}
