package io.writeguard.app.lab;

import io.writeguard.app.lab.api.Scenario.Verification;
import io.writeguard.app.lab.report.ResultTable.ClosingNote;
import io.writeguard.app.lab.result.LabReport;
import io.writeguard.app.lab.result.LabReport.ProcessesPoint;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * What fails a lab run (exit 1), at every client count and process count it measured: a loss
 * in a strategy that must not lose there, a lock violation, a broken invariant. Stateless.
 */
final class LabFailures {
  private LabFailures() {}

  /** Losses of strategies that must not lose, and broken invariants of any strategy. */
  static List<String> of(LabReport report, IntFunction<Set<String>> blindIn) {
    List<String> failed = new ArrayList<>();
    List<ProcessesPoint> all = report.byProcesses() != null ? report.byProcesses()
        : report.points().stream().map(p -> new ProcessesPoint(report.processes(), p.clients(),
            p.results())).toList();
    for (ProcessesPoint p : all) {
      Set<String> blind = blindIn.apply(p.processes());
      String at = report.byProcesses() != null ? " in " + ClosingNote.processes(p.processes())
          : report.sweep() == null ? "" : " at " + p.clients() + " clients";
      for (StrategyResult r : p.results()) {
        if (r.lostUpdates() > 0 && !blind.contains(r.strategy())) {
          failed.add(r.strategy() + " lost " + r.lostUpdates() + " acknowledged update(s)" + at);
        }
        if (r.lockViolations() > 0) {
          failed.add(r.strategy() + " met " + r.lockViolations() + " lock violation(s)" + at
              + " (a conflict or fenced rejection while holding a lock that should be"
              + " exclusive)");
        }
        long violations = r.figure(Verification.VIOLATIONS, 0);
        if (violations > 0) {
          failed.add(r.strategy() + " broke an invariant " + violations + " time(s)" + at
              + " (e.g. a negative balance)");
        }
      }
    }
    return failed;
  }
}
