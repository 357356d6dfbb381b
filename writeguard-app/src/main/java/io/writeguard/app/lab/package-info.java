/**
 * {@code writeguard lab}: runs a scenario under several strategies with concurrent clients and
 * counts lost updates exactly (docs/lab.md).
 *
 * <p>A reading order, one file per concept:
 *
 * <ol>
 *   <li>{@link io.writeguard.app.lab.LabCommand}: the options, the checks of what the user
 *       typed, the order of the output and the exit status;
 *   <li>{@link io.writeguard.app.lab.plan.LabPlan}: what a run will do (settings, the registry of
 *       scenarios and strategies, the schedule that tells the time left);
 *   <li>{@link io.writeguard.app.lab.api.Scenario} and {@link io.writeguard.app.lab.api.Strategy}: the
 *       two extension points;
 *   <li>{@link io.writeguard.app.lab.LabRunner} and {@link io.writeguard.app.lab.ClientLoop}:
 *       how a run goes (warm-ups, interleaved rounds, the clients, aborting);
 *   <li>{@link io.writeguard.app.lab.StrategyStats}: what a round measures and how rounds fold
 *       into one result;
 *   <li>{@link io.writeguard.app.lab.result.LabReport}: the results, also the JSON format;
 *   <li>{@link io.writeguard.app.lab.LabProgress}, {@code report.ResultTable} and
 *       {@code report.HtmlReport}: what the user sees while and after it runs.
 * </ol>
 *
 * <p>The scenarios are in {@code readinfo}, {@code counter} and {@code transfer}.
 * {@link io.writeguard.app.lab.Durations} is also used by the other commands.
 */
package io.writeguard.app.lab;
