package io.writeguard.app.lab;

/**
 * A scenario that moves amounts of a balance ({@code counter}, {@code transfer}): it reads
 * {@link ScenarioSettings#balances()}, so the lab accepts {@code --balance},
 * {@code --max-amount} and {@code --shards} for it and writes them into the report.
 */
public interface BalanceScenario<O> extends Scenario<O> {}
