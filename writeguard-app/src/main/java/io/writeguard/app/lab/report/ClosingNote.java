package io.writeguard.app.lab.report;

import io.writeguard.app.lab.LabReport;
import io.writeguard.app.lab.StrategyResult;
import io.writeguard.app.lab.SweepPoint;
import io.writeguard.app.lab.Verification;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The few sentences printed under the tables: how each strategy's speed compares with the
 * atomic baseline at every client count, and, for the balance scenarios, whether every final
 * total matched what was acknowledged and how low any reader saw a total go. Stateless.
 */
public final class ClosingNote {
  private static final String BASELINE = "atomic";

  private ClosingNote() {}

  /**
   * The note for {@code report}; {@code blind} names the strategies that exist to show the
   * problem (their losses are expected).
   */
  public static String render(LabReport report, Set<String> blind) {
    List<String> lines = new ArrayList<>();
    for (SweepPoint point : report.points()) {
      ratios(point).ifPresent(lines::add);
    }
    List<StrategyResult> all = report.points().stream()
        .flatMap(p -> p.results().stream()).toList();
    if (all.stream().anyMatch(r -> r.figures().containsKey("final_total"))) {
      lines.addAll(totals(report, blind));
    }
    if (lines.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    lines.forEach(l -> out.append(l).append(System.lineSeparator()));
    return out.toString();
  }

  private static Optional<String> ratios(SweepPoint point) {
    Optional<StrategyResult> base = point.results().stream()
        .filter(r -> r.strategy().equals(BASELINE) && r.throughputOpsS() > 0).findFirst();
    if (base.isEmpty() || point.results().size() < 2) {
      return Optional.empty();
    }
    double atomic = base.get().throughputOpsS();
    List<String> parts = new ArrayList<>();
    for (StrategyResult r : point.results()) {
      if (!r.strategy().equals(BASELINE)) {
        parts.add(String.format(Locale.ROOT, "%s %.2fx", r.strategy(), r.throughputOpsS() / atomic));
      }
    }
    return Optional.of(String.format(Locale.ROOT,
        "throughput vs atomic (%,.0f ops/s) at %d clients: %s", atomic, point.clients(),
        String.join(", ", parts)));
  }

  private static List<String> totals(LabReport report, Set<String> blind) {
    List<String> lines = new ArrayList<>();
    for (SweepPoint point : report.points()) {
      String at = report.sweep() == null ? "" : " at " + point.clients() + " clients";
      List<String> exact = new ArrayList<>();
      List<String> off = new ArrayList<>();
      List<String> lows = new ArrayList<>();
      for (StrategyResult r : point.results()) {
        long fin = r.figure("final_total", Long.MIN_VALUE);
        long exp = r.figure("expected_total", Long.MIN_VALUE);
        if (fin == Long.MIN_VALUE || exp == Long.MIN_VALUE) {
          continue;
        }
        if (fin == exp && r.lostUpdates() == 0) {
          exact.add(r.strategy());
        } else {
          off.add(String.format(Locale.ROOT, "%s (final %,d, expected %,d, lost %,d units%s)",
              r.strategy(), fin, exp, r.lostUpdates(),
              blind.contains(r.strategy()) ? ", expected of it" : ""));
        }
        long min = r.figure("min_total", Long.MIN_VALUE);
        if (min != Long.MIN_VALUE) {
          lows.add(String.format(Locale.ROOT, "%s %,d", r.strategy(), min));
        }
      }
      if (!exact.isEmpty()) {
        lines.add("final total = expected total" + at + ": " + String.join(", ", exact));
      }
      if (!off.isEmpty()) {
        lines.add("final total off" + at + ": " + String.join("; ", off));
      }
      if (!lows.isEmpty()) {
        boolean negative = point.results().stream()
            .anyMatch(r -> r.figure("min_total", 0) < 0
                || r.figure(Verification.VIOLATIONS, 0) > 0);
        lines.add("lowest total any reader saw" + at + ": " + String.join(", ", lows)
            + (negative ? " -- NEGATIVE TOTALS SEEN" : " (never negative)"));
      }
    }
    return lines;
  }
}
