package io.writeguard.app.lab;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/** Renders a lab run as plain text: a header before it runs, an aligned table after. Stateless. */
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
    String budget = s.duration() != null
        ? LabDurations.format(s.duration()) + " per strategy"
        : String.format(Locale.ROOT, "%,d operations per strategy", s.ops());
    String warm = s.warmup().isZero() ? "no warm-up" : LabDurations.format(s.warmup()) + " warm-up";
    return String.format(Locale.ROOT,
        "writeguard lab: scenario %s (%s)%n"
            + "  %s clients, %d hot document%s, %s after %s, seed %d%n"
            + "  server: %s MongoDB %s at %s%n",
        scenario, scenarioDescription, clients, s.docs(), s.docs() == 1 ? "" : "s", budget,
        warm, s.seed(), server.kind(), server.version(), where);
  }

  /**
   * The results, one row per strategy. {@code blind} names strategies that cannot see
   * conflicts (their conflict column shows "-").
   */
  public static String render(LabReport report, Set<String> blind) {
    Optional<StrategyResult> baseline = report.result(BASELINE);
    boolean locks = report.results().stream()
        .anyMatch(r -> r.lockWaitMs() != null || r.lockViolations() > 0);
    List<String[]> rows = new ArrayList<>();
    rows.add(locks ? withLockColumns(COLUMNS, LOCK_COLUMNS) : COLUMNS);
    for (StrategyResult r : report.results()) {
      String lost = r.lostUpdates() == 0 ? "0" : String.format(Locale.ROOT, "%,d (%.1f%%)",
          r.lostUpdates(), 100.0 * r.lostUpdates() / Math.max(1, r.expected()));
      String ratio = baseline.filter(b -> b.throughputOpsS() > 0)
          .map(b -> String.format(Locale.ROOT, "%.2fx", r.throughputOpsS() / b.throughputOpsS()))
          .orElse("-");
      rows.add(new String[] {
          r.strategy(),
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
    }
    int[] width = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        String cell = i == 0 ? pad(row[i], width[i], true) : pad(row[i], width[i], false);
        out.append(i == 0 ? "" : "  ").append(cell);
      }
      out.append(System.lineSeparator());
    }
    for (StrategyResult r : report.results()) {
      if (r.errorSample() != null) {
        out.append(String.format(Locale.ROOT, "%s: %,d errors, e.g. %s%n",
            r.strategy(), r.errors(), r.errorSample()));
      }
    }
    return out.toString();
  }

  private static String[] withLockColumns(String[] row, String[] lock) {
    String[] longer = Arrays.copyOf(row, row.length + lock.length);
    System.arraycopy(lock, 0, longer, row.length, lock.length);
    return longer;
  }

  private static String ms(double v) {
    return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String pad(String s, int width, boolean left) {
    String fill = " ".repeat(width - s.length());
    return left ? s + fill : fill + s;
  }
}
