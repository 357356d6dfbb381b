/**
 * {@code writeguard lab}: runs a scenario under several strategies with concurrent clients and
 * counts lost updates exactly (docs/lab.md).
 *
 * <p>The packages, each using only those below it ({@code AppLayersTest} checks it):
 *
 * <pre>
 * lab                          the command, the runner, the clients, the registry
 * lab.report                   what the user sees after a run         uses result, plan, api
 * lab.readinfo, .counter, ...  one package per scenario               uses api only
 * lab.result, lab.plan         what a run measured; what it will do   use api only
 * lab.api                      what a scenario is written against     uses nothing of the lab
 * </pre>
 *
 * <p>A reading order, one file per concept:
 *
 * <ol>
 *   <li>{@link io.writeguard.app.lab.LabCommand}: the options, the checks of what the user
 *       typed, the order of the output and the exit status;
 *   <li>{@link io.writeguard.app.lab.api.Scenario} and {@link io.writeguard.app.lab.api.Strategy}:
 *       the two extension points, and {@link io.writeguard.app.lab.Scenarios}, where scenarios
 *       are registered;
 *   <li>{@link io.writeguard.app.lab.plan.LabPlan} and
 *       {@link io.writeguard.app.lab.plan.LabSettings}: what a run will do;
 *   <li>{@link io.writeguard.app.lab.LabRunner} and {@link io.writeguard.app.lab.ClientLoop}:
 *       how a run goes (warm-ups until every strategy's speed stops rising, {@code WarmUp};
 *       interleaved rounds, the clients, aborting), with
 *       {@link io.writeguard.app.lab.LabSchedule} telling the time left;
 *   <li>{@link io.writeguard.app.lab.StrategyStats}: what a round measures, and
 *       {@link io.writeguard.app.lab.result.RoundMedians}: how rounds fold into one result;
 *   <li>{@link io.writeguard.app.lab.result.LabReport}: the results, also the JSON format;
 *   <li>{@link io.writeguard.app.lab.LabProgress}, {@code report.ResultTable} and
 *       {@code report.HtmlReport}: what the user sees while and after it runs.
 * </ol>
 *
 * <p>To add a scenario: a package {@code lab.<name>} that uses only {@code lab.api}, whose
 * {@code entry()} lists its strategies, added to {@link io.writeguard.app.lab.Scenarios#standard()}
 * (docs/lab.md, "Adding a scenario or a strategy").
 */
package io.writeguard.app.lab;
