/**
 * The lab's API: everything a scenario package is written against, and nothing else of the lab.
 *
 * <ul>
 *   <li>{@link io.writeguard.app.lab.api.Scenario}: the workload, with the
 *       {@link io.writeguard.app.lab.api.Scenario.ScenarioSettings} it receives, its
 *       {@link io.writeguard.app.lab.api.Scenario.ScenarioRun}, each client's
 *       {@link io.writeguard.app.lab.api.Scenario.ClientWorkload} and the
 *       {@link io.writeguard.app.lab.api.Scenario.Verification} that counts what is visible;
 *   <li>{@link io.writeguard.app.lab.api.Strategy}: one way of applying the scenario's
 *       operations, with the {@link io.writeguard.app.lab.api.Strategy.StrategyContext} it gets
 *       for a run;
 *   <li>{@link io.writeguard.app.lab.api.BalanceSettings}: the numbers of the balance scenarios;
 *   <li>{@link io.writeguard.app.lab.api.LabStrategy} and
 *       {@link io.writeguard.app.lab.api.ScenarioEntry}: how a scenario registers itself and its
 *       strategies.
 * </ul>
 *
 * <p>Nothing here points back at the plan, the runner, the report or any scenario
 * ({@code AppLayersTest} checks it): a scenario depends on this package, the lab depends on
 * the scenarios through their {@code entry()} in {@code io.writeguard.app.lab.Scenarios}.
 */
package io.writeguard.app.lab.api;
