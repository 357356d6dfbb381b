/**
 * What a lab run measured: the {@link io.writeguard.app.lab.result.LabReport} (also the
 * {@code --json} format) with one {@link io.writeguard.app.lab.result.LabReport.StrategyResult}
 * per strategy, and {@link io.writeguard.app.lab.result.RoundMedians}, which folds a strategy's
 * rounds into one result. Depends on {@code lab.api} only (a scenario's figures, the balance
 * settings), so the runner writes it and the report renders it without either knowing the other.
 */
package io.writeguard.app.lab.result;
