package io.writeguard.app.lab.report;

import io.writeguard.app.cli.Durations;
import io.writeguard.app.lab.api.Scenario.Verification;
import io.writeguard.app.lab.plan.LabSettings;
import io.writeguard.app.lab.result.LabReport;
import io.writeguard.app.lab.result.LabReport.ProcessesPoint;
import io.writeguard.app.lab.result.LabReport.ServerInfo;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import io.writeguard.app.lab.result.LabReport.SweepPoint;
import io.writeguard.app.lab.result.RoundMedians;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Renders a lab run as plain text: a header before it runs, an aligned table after (numbers
 * right-aligned, "-" where a value does not apply, markers on strategies whose results are no
 * results), then the scenario's {@link FiguresTable} and the {@link ClosingNote}. Stateless.
 */
public final class ResultTable {
  private static final String[] COLUMNS = {"strategy", "acked", "lost", "errors", "ops/s",
      "vs atomic", "p50 ms", "p99 ms", "max ms", "conflicts", "retries"};
  /** Shown only when some strategy took locks. */
  private static final String[] LOCK_COLUMNS = {"lock p99 ms", "lock t/o", "lock viol."};
  private static final String BASELINE = "atomic";

  private ResultTable() {}

  /** What is about to run, on which server. */
  public static String header(String scenario, String scenarioDescription, LabSettings s,
      ServerInfo server, String where) {
    return header(scenario, scenarioDescription, s, String.valueOf(s.clients()), server, where);
  }

  /** The same, with the client count written as {@code clients} (e.g. {@code 1,4,16}). */
  public static String header(String scenario, String scenarioDescription, LabSettings s,
      String clients, ServerInfo server, String where) {
    String per = s.rounds() > 1 ? " per strategy and round" : " per strategy";
    String budget = s.duration() != null
        ? Durations.format(s.duration()) + per
        : String.format(Locale.ROOT, "%,d operations", s.ops()) + per;
    String warm = s.warmup().isZero() ? "no warm-up"
        : "a warm-up of up to " + Durations.format(s.warmup()) + " until speed stops rising";
    return String.format(Locale.ROOT,
        "writeguard lab: scenario %s (%s)%n"
            + "  %s clients, %d hot document%s, %s after %s, seed %d, group commit %s%n"
            + "  server: %s MongoDB %s at %s%n",
        scenario, scenarioDescription, clients, s.docs(), s.docs() == 1 ? "" : "s", budget,
        warm, s.seed(), s.groupCommit() ? "on" : "off", server.kind(), server.version(), where);
  }

  /**
   * The results, one row per strategy, numbers right-aligned and a missing value shown as
   * "-". {@code blind} names strategies that cannot see conflicts (their conflict column shows
   * "-"). A strategy that lost updates or met lock violations carries its
   * {@link StrategyResult#flags()} next to its name, explained under the table.
   */
  public static String render(LabReport report, Set<String> blind) {
    Optional<StrategyResult> baseline = report.result(BASELINE);
    boolean locks = report.results().stream()
        .anyMatch(r -> r.lockWaitMs() != null || r.lockViolations() > 0);
    boolean spread = report.results().stream()
        .anyMatch(r -> r.figures().get(RoundMedians.THROUGHPUT_RANGE) instanceof List);
    List<String[]> rows = new ArrayList<>();
    rows.add(locks ? withLockColumns(COLUMNS, LOCK_COLUMNS) : COLUMNS);
    if (spread) {
      rows.set(0, withSpread(rows.get(0), "ops/s min..max", "p99 min..max"));
    }
    for (StrategyResult r : report.results()) {
      String lost = r.lostUpdates() == 0 ? "0" : String.format(Locale.ROOT, "%,d (%.1f%%)",
          r.lostUpdates(), 100.0 * r.lostUpdates() / Math.max(1, r.expected()));
      String ratio = baseline.filter(b -> b.throughputOpsS() > 0)
          .map(b -> ratio(r, b)).orElse("-");
      rows.add(new String[] {
          name(r),
          String.format(Locale.ROOT, "%,d", r.acknowledged()),
          lost,
          String.format(Locale.ROOT, "%,d", r.errors()),
          String.format(Locale.ROOT, "%,.0f", r.throughputOpsS()),
          ratio,
          ms(r.latencyMs().p50()),
          ms(r.latencyMs().p99()),
          ms(r.latencyMs().max()),
          blind.contains(r.strategy()) ? "-"
              : String.format(Locale.ROOT, "%.1f%%", 100 * r.conflictRatio()),
          String.format(Locale.ROOT, "%,d", r.retries())});
      if (locks) {
        String[] row = rows.remove(rows.size() - 1);
        rows.add(withLockColumns(row, new String[] {
            r.lockWaitMs() == null ? "-" : ms(r.lockWaitMs().p99()),
            r.lockWaitMs() == null ? "-" : String.format(Locale.ROOT, "%,d", r.lockTimeouts()),
            r.lockWaitMs() == null && r.lockViolations() == 0 ? "-"
                : String.format(Locale.ROOT, "%,d", r.lockViolations())}));
      }
      if (spread) {
        String[] row = rows.remove(rows.size() - 1);
        rows.add(withSpread(row, range(r, RoundMedians.THROUGHPUT_RANGE, true),
            range(r, RoundMedians.P99_RANGE, false)));
      }
    }
    StringBuilder out = new StringBuilder(TextTable.render(rows));
    out.append(legend(report.results(), blind));
    for (StrategyResult r : report.results()) {
      if (r.errorSample() != null) {
        out.append(String.format(Locale.ROOT, "%s: %,d errors, e.g. %s%n",
            r.strategy(), r.errors(), r.errorSample()));
      }
    }
    return out.toString();
  }

  /** The name with its markers: {@code [LOST n]} and the like, then {@code [UNSTEADY +-n%]}. */
  static String name(StrategyResult r) {
    String name = r.flags().isEmpty() ? r.strategy() : r.strategy() + " [" + r.flags() + "]";
    return r.unsteady() ? name + " " + r.steadinessMarker() : name;
  }

  /**
   * {@code r}'s throughput against {@code base}'s, {@code 1.30x}; with a leading {@code ~} when
   * either one's rounds are unsteady, so the ratio does not read as a finding ({@code base}
   * against itself is 1.00x however its rounds went).
   */
  public static String ratio(StrategyResult r, StrategyResult base) {
    return (r != base && (r.unsteady() || base.unsteady()) ? "~" : "")
        + String.format(Locale.ROOT, "%.2fx", r.throughputOpsS() / base.throughputOpsS());
  }

  /** What the markers next to strategy names mean, for the markers shown; "" for none. */
  static String legend(List<StrategyResult> results, Set<String> blind) {
    StringBuilder out = new StringBuilder();
    String nl = System.lineSeparator();
    List<String> lost = results.stream().filter(r -> r.lostUpdates() > 0)
        .map(StrategyResult::strategy).toList();
    if (!lost.isEmpty()) {
      boolean allExpected = blind.containsAll(lost);
      out.append("[LOST n]: n acknowledged updates are missing at the end, so the speed of ")
          .append(String.join(", ", lost)).append(" is no result")
          .append(allExpected ? " (it is here to show the problem)" : "").append(nl);
    }
    if (results.stream().anyMatch(r -> r.lockViolations() > 0)) {
      out.append("[LOCK VIOL. n]: n conflicts or fenced rejections while holding a lock that"
          + " should be exclusive").append(nl);
    }
    if (results.stream().anyMatch(r -> r.figure(Verification.VIOLATIONS, 0) > 0)) {
      out.append("[VIOLATIONS n]: an invariant broke n times (e.g. a negative balance)")
          .append(nl);
    }
    if (results.stream().anyMatch(StrategyResult::unsteady)) {
      out.append(String.format(Locale.ROOT, "[UNSTEADY +-n%%]: a round was n%% off the median"
          + " (more than +-%.0f%%), so that speed and every ratio marked ~ are no finding;"
          + " run again on a quieter machine or with more --rounds", RoundMedians.STEADY_PCT))
          .append(nl);
    }
    return out.toString();
  }

  /**
   * {@code row} with the spread over rounds next to the medians: after {@code ops/s} (index 4)
   * and after {@code p99 ms} (index 7, 8 once the first is in).
   */
  private static String[] withSpread(String[] row, String throughput, String p99) {
    List<String> cells = new ArrayList<>(Arrays.asList(row));
    cells.add(5, throughput);
    cells.add(9, p99);
    return cells.toArray(String[]::new);
  }

  /** "lowest..highest" of a range figure, or "-" when the result has none. */
  private static String range(StrategyResult r, String figure, boolean opsPerSecond) {
    if (!(r.figures().get(figure) instanceof List<?> l) || l.size() != 2
        || !(l.get(0) instanceof Number lo) || !(l.get(1) instanceof Number hi)) {
      return "-";
    }
    return opsPerSecond
        ? String.format(Locale.ROOT, "%,.0f..%,.0f", lo.doubleValue(), hi.doubleValue())
        : ms(lo.doubleValue()) + ".." + ms(hi.doubleValue());
  }

  private static String[] withLockColumns(String[] row, String[] lock) {
    String[] longer = Arrays.copyOf(row, row.length + lock.length);
    System.arraycopy(lock, 0, longer, row.length, lock.length);
    return longer;
  }

  private static String ms(double v) {
    return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
  }

  /**
   * The scenario-specific figures of a set of results (for {@code counter}: final, expected and
   * lowest total, refused decrements, ...) as a text table, one row per strategy, columns named
   * as in the JSON. Only whole-number figures are shown; per-round lists stay in the JSON.
   * Stateless.
   */
  public static final class FiguresTable {
    private FiguresTable() {}

    /** The table, or "" when no result has figures. */
    public static String render(List<StrategyResult> results) {
      Set<String> names = new LinkedHashSet<>();
      for (StrategyResult r : results) {
        r.figures().forEach((name, value) -> {
          if (value instanceof Long || value instanceof Integer) {
            names.add(name);
          }
        });
      }
      if (names.isEmpty()) {
        return "";
      }
      List<String[]> rows = new ArrayList<>();
      List<String> header = new ArrayList<>(List.of("strategy"));
      header.addAll(names);
      rows.add(header.toArray(String[]::new));
      for (StrategyResult r : results) {
        List<String> row = new ArrayList<>(List.of(r.strategy()));
        for (String name : names) {
          Object v = r.figures().get(name);
          row.add(v instanceof Number n ? String.format(Locale.ROOT, "%,d", n.longValue()) : "-");
        }
        rows.add(row.toArray(String[]::new));
      }
      return TextTable.render(rows);
    }
  }

  /**
   * The few sentences printed under the tables: how each strategy's speed compares with the
   * atomic baseline at every client count, and, for the balance scenarios, whether every final
   * total matched what was acknowledged and how low any reader saw a total go. Stateless.
   */
  public static final class ClosingNote {
    private static final String BASELINE = "atomic";

    private ClosingNote() {}

    /**
     * The note for {@code report}; {@code blind} names the strategies that exist to show the
     * problem (their losses are expected).
     */
    public static String render(LabReport report, Set<String> blind) {
      List<String> lines = new ArrayList<>();
      if (report.byProcesses() != null) {
        for (ProcessesPoint p : report.byProcesses()) {
          ratios(new SweepPoint(p.clients(), p.results()), " in " + processes(p.processes()))
              .ifPresent(lines::add);
        }
      } else {
        for (SweepPoint point : report.points()) {
          ratios(point, "").ifPresent(lines::add);
        }
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

    /** {@code 1 process}, {@code 4 processes}. */
    public static String processes(int n) {
      return n + (n == 1 ? " process" : " processes");
    }

    private static Optional<String> ratios(SweepPoint point, String processes) {
      Optional<StrategyResult> base = point.results().stream()
          .filter(r -> r.strategy().equals(BASELINE) && r.throughputOpsS() > 0).findFirst();
      if (base.isEmpty() || point.results().size() < 2) {
        return Optional.empty();
      }
      double atomic = base.get().throughputOpsS();
      List<String> parts = new ArrayList<>();
      for (StrategyResult r : point.results()) {
        if (!r.strategy().equals(BASELINE)) {
          parts.add(r.strategy() + " " + ResultTable.ratio(r, base.get())
              + (r.flags().isEmpty() ? "" : " [" + r.flags() + "]")
              + (r.unsteady() ? " " + r.steadinessMarker() : ""));
        }
      }
      return Optional.of(String.format(Locale.ROOT,
          "throughput vs atomic (%,.0f ops/s%s) at %d clients%s: %s", atomic,
          base.get().unsteady() ? ", " + base.get().steadinessMarker() : "", point.clients(),
          processes, String.join(", ", parts)));
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

  /** Aligns rows of cells into columns: the first left-aligned, the rest right. Stateless. */
  static final class TextTable {
    private TextTable() {}

    static String render(List<String[]> rows) {
      int columns = rows.stream().mapToInt(r -> r.length).max().orElse(0);
      int[] width = new int[columns];
      for (String[] row : rows) {
        for (int i = 0; i < row.length; i++) {
          width[i] = Math.max(width[i], row[i].length());
        }
      }
      StringBuilder out = new StringBuilder();
      for (String[] row : rows) {
        for (int i = 0; i < row.length; i++) {
          String fill = " ".repeat(width[i] - row[i].length());
          out.append(i == 0 ? "" : "  ").append(i == 0 ? row[i] + fill : fill + row[i]);
        }
        out.append(System.lineSeparator());
      }
      return out.toString();
    }
  }
}
