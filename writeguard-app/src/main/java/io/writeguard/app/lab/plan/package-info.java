/**
 * What a lab run will do, before it does it: the {@link io.writeguard.app.lab.plan.LabPlan}
 * (a scenario and the strategies chosen by name) and its
 * {@link io.writeguard.app.lab.plan.LabSettings} (clients, documents, duration or operations,
 * rounds, warm-up, balances, group commit). Depends on {@code lab.api} only; the runner and the
 * report read it.
 */
package io.writeguard.app.lab.plan;
