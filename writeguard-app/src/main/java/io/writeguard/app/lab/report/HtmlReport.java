package io.writeguard.app.lab.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.writeguard.app.cli.Durations;
import io.writeguard.app.lab.report.ResultTable.ClosingNote;
import io.writeguard.app.lab.result.LabReport;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import io.writeguard.app.lab.result.LabReport.SweepPoint;
import io.writeguard.app.lab.result.RoundMedians;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

/**
 * The lab's report as one self-contained HTML page: Chart.js inlined, the report's JSON
 * embedded, no network needed. Charts: throughput, p99 latency and lost updates per strategy
 * (bars for one client count, lines over the client counts of a sweep), and throughput
 * relative to {@code atomic}; below them a table of lost updates and the scenario's figures
 * per strategy and client count. A strategy that lost updates, met lock violations or broke
 * an invariant ({@link StrategyResult#flags()}) is drawn hatched red (dashed, with crossed
 * points, in a sweep), named with its markers, and flagged in red in the tables, with a
 * legend under the charts: a fast {@code naive} must not look like a winner. The page is at
 * most 1,400 px wide, and so are its tables (headers wrap; a wider table scrolls inside its
 * box instead of widening the page).
 *
 * <p>Nothing from the report reaches the page unescaped: text goes through
 * {@link #escapeHtml}, the JSON through {@link #escapeJsonForScript} (so a string holding
 * {@code </script>} cannot end the data block), and the charts draw labels on a canvas.
 * Stateless.
 */
public final class HtmlReport {
  private static final String BASELINE = "atomic";

  private HtmlReport() {}

  /** Writes the page for {@code report} to {@code file} (UTF-8). */
  public static void write(Path file, LabReport report, Set<String> blind) throws IOException {
    Files.writeString(file, render(report, blind), StandardCharsets.UTF_8);
  }

  /** The page for {@code report}; {@code blind} names strategies whose losses are expected. */
  public static String render(LabReport report, Set<String> blind) {
    String json;
    try {
      json = new ObjectMapper().writeValueAsString(report);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise the lab report", e);
    }
    String title = "writeguard lab: " + report.scenario();
    StringBuilder h = new StringBuilder(300_000);
    h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        .append("<title>").append(escapeHtml(title)).append("</title>\n")
        .append("<style>\n").append(CSS).append("</style>\n")
        .append("<script>\n").append(ChartJs.script()).append("\n</script>\n")
        .append("</head>\n<body>\n")
        .append("<h1>").append(escapeHtml(title)).append("</h1>\n")
        .append("<p class=\"meta\">").append(escapeHtml(summary(report))).append("</p>\n");
    boolean sweep = report.points().size() > 1;
    h.append("<div class=\"charts\">\n");
    chartBox(h, "throughput", "Throughput (acknowledged operations per second)"
        + (sweep ? ", by client count" : ""));
    chartBox(h, "p99", "p99 latency in ms (retries and backoff included)"
        + (sweep ? ", by client count, log scale" : ""));
    if (hasBaseline(report)) {
      chartBox(h, "ratio", "Throughput relative to atomic in the same run (1.00 = atomic)");
    }
    chartBox(h, "lost", "Lost updates: acknowledged operations missing at the end"
        + (sweep ? ", by client count" : ""));
    h.append("</div>\n");
    if (anyFlagged(report)) {
      h.append("<p class=\"legend\"><span class=\"swatch\"></span>Hatched red bars"
          + (sweep ? ", dashed lines and crossed points" : "") + " and the red markers in"
          + " the table: the strategy lost acknowledged updates (LOST), let two lock holders"
          + " in (LOCK VIOL.) or broke an invariant (VIOLATIONS). Its speed is no result,"
          + " however fast it looks.</p>\n");
    }
    if (report.points().stream().anyMatch(p -> p.results().stream()
        .anyMatch(StrategyResult::unsteady))) {
      h.append("<p class=\"legend\"><span class=\"unsteady\">UNSTEADY +-n%</span> in the"
          + " table: a round of the strategy was n% off its median (more than +-"
          + String.format(Locale.ROOT, "%.0f", RoundMedians.STEADY_PCT) + "%), so its speed"
          + " and the ratios marked ~ are no finding; run again on a quieter machine or with"
          + " more rounds.</p>\n");
    }
    h.append("<h2>Lost updates</h2>\n")
        .append("<p class=\"note\">Lost = acknowledged effects missing at the end (see"
            + " docs/lab.md for each scenario's unit). Every strategy but those that exist"
            + " to show the problem must lose nothing.</p>\n");
    lostTable(h, report, blind);
    h.append("<script type=\"application/json\" id=\"lab-data\">")
        .append(escapeJsonForScript(json)).append("</script>\n")
        .append("<script>\n").append(CHARTS).append("</script>\n")
        .append("</body>\n</html>\n");
    return h.toString();
  }

  private static String summary(LabReport r) {
    List<String> parts = new ArrayList<>();
    List<Integer> counts = r.points().stream().map(SweepPoint::clients).toList();
    parts.add(counts.size() == 1 ? counts.get(0) + " clients"
        : counts.stream().map(String::valueOf).reduce((a, b) -> a + ", " + b).orElse("")
            + " clients (sweep)");
    parts.add(r.docs() + " hot document" + (r.docs() == 1 ? "" : "s"));
    parts.add(r.durationS() != null
        ? Durations.format(Duration.ofMillis(Math.round(r.durationS() * 1000)))
            + " per strategy"
        : String.format(Locale.ROOT, "%,d operations per strategy", r.ops()));
    if (r.rounds() > 1) {
      parts.add(r.rounds() + " interleaved rounds, medians");
    }
    parts.add("seed " + r.seed());
    if (r.balances() != null) {
      parts.add("balance " + r.balances().initialBalance() + ", amounts 1.."
          + r.balances().maxAmount() + ", " + r.balances().shards() + " shards");
    }
    parts.add("server: " + r.server().kind() + " MongoDB " + r.server().version());
    return String.join(" \u00b7 ", parts);
  }

  private static void chartBox(StringBuilder h, String id, String caption) {
    h.append("<figure><figcaption>").append(escapeHtml(caption))
        .append("</figcaption><div class=\"chart\"><canvas id=\"chart-").append(id)
        .append("\"></canvas></div></figure>\n");
  }

  /** The results of one client count, or of one process count, and the label of its rows. */
  private record Point(String label, List<StrategyResult> results) {}

  /**
   * The points the table has rows for: every process count of {@code --processes 1,2,4}
   * ({@code 16 in 4 processes}), else every client count ({@code 16}).
   */
  private static List<Point> rowsByPoint(LabReport report) {
    return report.byProcesses() == null
        ? report.points().stream()
            .map(p -> new Point(String.valueOf(p.clients()), p.results())).toList()
        : report.byProcesses().stream().map(p -> new Point(p.clients() + " in "
            + ClosingNote.processes(p.processes()), p.results())).toList();
  }

  private static boolean hasBaseline(LabReport report) {
    return report.points().stream().anyMatch(p -> p.results().stream()
        .anyMatch(r -> r.strategy().equals(BASELINE) && r.throughputOpsS() > 0));
  }

  private static void lostTable(StringBuilder h, LabReport report, Set<String> blind) {
    Set<String> figures = new LinkedHashSet<>();
    report.points().forEach(p -> p.results().forEach(r -> r.figures().forEach((k, v) -> {
      if (v instanceof Long || v instanceof Integer) {
        figures.add(k);
      }
    })));
    // Lock columns only when some strategy took a lock (lock_wait_ms is set).
    boolean locks = report.points().stream()
        .anyMatch(p -> p.results().stream()
            .anyMatch(r -> r.lockWaitMs() != null || r.lockViolations() > 0));
    h.append("<div class=\"table\"><table>\n<thead><tr><th>clients</th><th>strategy</th>"
        + "<th>acknowledged</th>"
        + "<th>lost updates</th><th>errors</th><th>ops/s</th><th>vs atomic</th>"
        + "<th>p50 ms</th><th>p99 ms</th><th>conflicts</th><th>retries</th>"
        + (locks ? "<th>lock wait p99 ms</th><th>lock timeouts</th><th>fenced</th>"
            + "<th>lock violations</th>" : "")
        + "</tr></thead>\n<tbody>\n");
    for (Point p : rowsByPoint(report)) {
      Optional<StrategyResult> base = p.results().stream()
          .filter(r -> r.strategy().equals(BASELINE) && r.throughputOpsS() > 0).findFirst();
      for (StrategyResult r : p.results()) {
        boolean bad = r.lostUpdates() > 0 && !blind.contains(r.strategy());
        String lost = r.lostUpdates() == 0 ? "0" : String.format(Locale.ROOT, "%,d (%.1f%%)",
            r.lostUpdates(), 100.0 * r.lostUpdates() / Math.max(1, r.expected()));
        h.append(r.flags().isEmpty() ? "<tr>" : "<tr class=\"flagged\">")
            .append("<td>").append(escapeHtml(p.label())).append("</td><td>")
            .append(escapeHtml(r.strategy()))
            .append(r.flags().isEmpty() ? ""
                : " <span class=\"flag\">" + escapeHtml(r.flags()) + "</span>")
            .append(blind.contains(r.strategy()) ? " <small>(shows the problem)</small>" : "")
            .append(r.unsteady() ? " <span class=\"unsteady\">"
                + escapeHtml(r.steadinessMarker()) + "</span>" : "")
            .append("</td><td>").append(num(r.acknowledged()))
            .append("</td><td class=\"").append(bad ? "bad" : r.lostUpdates() > 0 ? "warn" : "ok")
            .append("\">").append(escapeHtml(lost))
            .append("</td><td>").append(num(r.errors()))
            .append("</td><td>").append(String.format(Locale.ROOT, "%,.0f", r.throughputOpsS()))
            .append("</td><td>").append(base.map(b -> ResultTable.ratio(r, b)).orElse("-"))
            .append("</td><td>").append(String.format(Locale.ROOT, "%.2f", r.latencyMs().p50()))
            .append("</td><td>").append(String.format(Locale.ROOT, "%.2f", r.latencyMs().p99()))
            .append("</td><td>").append(blind.contains(r.strategy()) ? "-"
                : String.format(Locale.ROOT, "%.1f%%", 100 * r.conflictRatio()))
            .append("</td><td>").append(num(r.retries()));
        if (locks) {
          h.append("</td><td>").append(r.lockWaitMs() == null ? "-"
                  : String.format(Locale.ROOT, "%.2f", r.lockWaitMs().p99()))
              .append("</td><td>").append(r.lockWaitMs() == null ? "-" : num(r.lockTimeouts()))
              .append("</td><td>").append(r.lockWaitMs() == null ? "-"
                  : num(r.fencedRejections()))
              .append("</td><td class=\"").append(r.lockViolations() > 0 ? "bad" : "ok")
              .append("\">").append(r.lockWaitMs() == null && r.lockViolations() == 0 ? "-"
                  : num(r.lockViolations()));
        }
        h.append("</td></tr>\n");
        if (r.errorSample() != null) {
          h.append("<tr class=\"sample\"><td></td><td colspan=\"").append(locks ? 14 : 10)
              .append("\">e.g. ")
              .append(escapeHtml(r.errorSample())).append("</td></tr>\n");
        }
      }
    }
    h.append("</tbody>\n</table></div>\n");
    if (figures.isEmpty()) {
      return;
    }
    h.append("<h2>Scenario figures</h2>\n<p class=\"note\">Named as in the JSON report;"
        + " docs/lab.md explains each.</p>\n<div class=\"table\"><table>\n<thead><tr>"
        + "<th>clients</th>"
        + "<th>strategy</th>");
    figures.forEach(f -> h.append("<th>").append(escapeHtml(f.replace('_', ' ')))
        .append("</th>"));
    h.append("</tr></thead>\n<tbody>\n");
    for (SweepPoint p : report.points()) {
      for (StrategyResult r : p.results()) {
        h.append("<tr><td>").append(p.clients()).append("</td><td>")
            .append(escapeHtml(r.strategy()))
            .append(r.flags().isEmpty() ? ""
                : " <span class=\"flag\">" + escapeHtml(r.flags()) + "</span>")
            .append("</td>");
        for (String f : figures) {
          Object v = r.figures().get(f);
          h.append("<td>").append(v instanceof Number n ? num(n.longValue()) : "-")
              .append("</td>");
        }
        h.append("</tr>\n");
      }
    }
    h.append("</tbody>\n</table></div>\n");
  }

  private static boolean anyFlagged(LabReport report) {
    return report.points().stream()
        .anyMatch(p -> p.results().stream().anyMatch(r -> !r.flags().isEmpty()));
  }

  private static String num(long v) {
    return String.format(Locale.ROOT, "%,d", v);
  }

  /** Text safe inside HTML elements and quoted attributes. */
  public static String escapeHtml(String s) {
    StringBuilder out = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  /**
   * JSON safe inside a {@code <script>} element: {@code <}, {@code >} and {@code &} become
   * {@code \}{@code u003c} and friends (they can only occur inside JSON strings, where the
   * escape means the same), and so do U+2028/U+2029, which older JavaScript parsers reject.
   */
  public static String escapeJsonForScript(String json) {
    StringBuilder out = new StringBuilder(json.length() + 16);
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      switch (c) {
        case '<' -> out.append("\\u003c");
        case '>' -> out.append("\\u003e");
        case '&' -> out.append("\\u0026");
        case '\u2028' -> out.append("\\u2028");
        case '\u2029' -> out.append("\\u2029");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  private static final String CSS = """
      body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
             margin: 24px auto; padding: 0 24px; max-width: 1400px; box-sizing: border-box;
             color: #1d2330; background: #fff; }
      h1 { font-size: 22px; margin: 0 0 4px; }
      h2 { font-size: 17px; margin: 28px 0 6px; }
      .meta, .note { color: #5a6275; margin: 0 0 12px; }
      .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr));
                gap: 18px; }
      figure { margin: 0; border: 1px solid #e2e5ec; border-radius: 6px; padding: 10px 12px; }
      figcaption { font-weight: 600; margin-bottom: 6px; }
      .chart { position: relative; height: 320px; }
      .legend { margin: 10px 0 0; color: #5a6275; }
      .swatch { display: inline-block; width: 26px; height: 12px; margin-right: 8px;
                vertical-align: -1px; border: 2px solid #c0162c;
                background: repeating-linear-gradient(135deg, #c0162c 0 2px, #fde3e6 2px 6px); }
      .table { max-width: 100%; overflow-x: auto; }
      table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 13px; }
      th, td { border-bottom: 1px solid #e2e5ec; padding: 4px 8px; text-align: right;
               white-space: nowrap; }
      th { white-space: normal; vertical-align: bottom; }
      .flag { display: inline-block; padding: 0 5px; border-radius: 3px; font-size: 11px;
              font-weight: 700; color: #fff; background: #c0162c; }
      tr.flagged td { background: #fff4f5; }
      .unsteady { display: inline-block; padding: 0 5px; border-radius: 3px; font-size: 11px;
                  font-weight: 700; color: #5b3b00; background: #ffd98a; }
      th:nth-child(2), td:nth-child(2) { text-align: left; }
      th { background: #f4f6fa; }
      td.ok { color: #1b7f3b; } td.warn { color: #a36a00; } td.bad { color: #c0162c; font-weight: 700; }
      tr.sample td { color: #5a6275; text-align: left; font-size: 12px; white-space: normal;
                     overflow-wrap: anywhere; }
      """;

  /** Builds the charts from the embedded JSON; strategy names only ever reach the canvas. */
  private static final String CHARTS = """
      (function () {
        const report = JSON.parse(document.getElementById('lab-data').textContent);
        const points = report.sweep || [{clients: report.clients, results: report.results}];
        const sweep = points.length > 1;
        const strategies = [];
        points.forEach(p => p.results.forEach(r => {
          if (!strategies.includes(r.strategy)) strategies.push(r.strategy);
        }));
        const palette = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948',
                         '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
        const color = s => palette[strategies.indexOf(s) % palette.length];
        const find = (p, s) => p.results.find(r => r.strategy === s);
        // A strategy that lost updates, let two lock holders in or broke an invariant is
        // drawn hatched red (bars) or dashed with crossed points (lines): never a winner.
        const bad = r => !!r && (r.lost_updates > 0 || (r.lock_violations || 0) > 0
            || (r.violations || 0) > 0);
        const badAnywhere = s => points.some(p => bad(find(p, s)));
        const RED = '#c0162c';
        const hatch = (() => {
          const c = document.createElement('canvas');
          c.width = 8; c.height = 8;
          const g = c.getContext('2d');
          g.fillStyle = '#fde3e6'; g.fillRect(0, 0, 8, 8);
          g.strokeStyle = RED; g.lineWidth = 2;
          g.beginPath(); g.moveTo(0, 8); g.lineTo(8, 0); g.moveTo(-2, 2); g.lineTo(2, -2);
          g.moveTo(6, 10); g.lineTo(10, 6); g.stroke();
          return g.createPattern(c, 'repeat');
        })();
        const tags = r => [r.lost_updates > 0 ? 'LOST' : null,
            (r.lock_violations || 0) > 0 ? 'LOCK VIOL.' : null,
            (r.violations || 0) > 0 ? 'VIOLATIONS' : null].filter(t => t);
        const label = s => {
          const all = [];
          points.forEach(p => { const r = find(p, s);
            if (r) tags(r).forEach(t => { if (!all.includes(t)) all.push(t); }); });
          return all.length ? s + ' [' + all.join(', ') + ']' : s;
        };
        const ratio = (p, r) => {
          const base = find(p, 'atomic');
          return base && base.throughput_ops_s > 0 ? r.throughput_ops_s / base.throughput_ops_s : null;
        };
        const metrics = {
          throughput: {label: 'ops/s', value: (p, r) => r.throughput_ops_s},
          p99: {label: 'p99 ms', value: (p, r) => r.latency_ms.p99, log: true},
          ratio: {label: 'x atomic', value: ratio},
          lost: {label: 'lost updates', value: (p, r) => r.lost_updates}
        };
        Object.entries(metrics).forEach(([id, m]) => {
          const canvas = document.getElementById('chart-' + id);
          if (!canvas) return;
          const value = (p, s) => { const r = find(p, s); return r ? m.value(p, r) : null; };
          const common = {responsive: true, maintainAspectRatio: false, animation: false};
          if (sweep) {
            new Chart(canvas, {type: 'line',
              data: {labels: points.map(p => p.clients), datasets: strategies.map(s => ({
                label: label(s), data: points.map(p => value(p, s)), borderColor: color(s),
                backgroundColor: color(s), tension: 0.15, spanGaps: true,
                borderDash: badAnywhere(s) ? [6, 4] : [],
                pointStyle: points.map(p => bad(find(p, s)) ? 'crossRot' : 'circle'),
                pointRadius: points.map(p => bad(find(p, s)) ? 8 : 3),
                pointBorderWidth: points.map(p => bad(find(p, s)) ? 3 : 1),
                pointBorderColor: points.map(p => bad(find(p, s)) ? RED : color(s))}))},
              options: Object.assign({}, common, {scales: {
                x: {title: {display: true, text: 'clients'}},
                y: {type: m.log ? 'logarithmic' : 'linear', beginAtZero: !m.log,
                    title: {display: true, text: m.label}}}})
            });
          } else {
            new Chart(canvas, {type: 'bar',
              data: {labels: strategies.map(label), datasets: [{label: m.label,
                data: strategies.map(s => value(points[0], s)),
                backgroundColor: strategies.map(s => bad(find(points[0], s)) ? hatch : color(s)),
                borderColor: strategies.map(s => bad(find(points[0], s)) ? RED : color(s)),
                borderWidth: strategies.map(s => bad(find(points[0], s)) ? 2 : 0)}]},
              options: Object.assign({}, common, {plugins: {legend: {display: false}},
                scales: {y: {beginAtZero: true, title: {display: true, text: m.label}}}})
            });
          }
        });
      })();
      """;

  /**
   * Chart.js (MIT licence, banner kept) from the {@code org.webjars.npm:chart.js} webjar on the
   * classpath, to inline into the HTML report so the page needs no network. The version is read
   * from the webjar's {@code pom.properties}, so upgrading the dependency needs no code change.
   * Stateless; the script is read on each call (once per report).
   */
  static final class ChartJs {
    private static final String POM =
        "META-INF/maven/org.webjars.npm/chart.js/pom.properties";

    private ChartJs() {}

    /** The webjar's version, e.g. {@code 4.4.1}. */
    static String version() {
      Properties p = new Properties();
      try (InputStream in = open(POM)) {
        p.load(in);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + POM, e);
      }
      String v = p.getProperty("version");
      if (v == null || v.isBlank()) {
        throw new IllegalStateException(POM + " names no version");
      }
      return v.trim();
    }

    /**
     * The UMD build, safe to put between {@code <script>} tags: its source-map comment is
     * dropped (the map is not shipped), and a script that could close the tag early is refused.
     */
    static String script() {
      String path = "META-INF/resources/webjars/chart.js/" + version() + "/dist/chart.umd.js";
      String js;
      try (InputStream in = open(path)) {
        js = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + path, e);
      }
      js = js.replaceAll("(?m)^//# sourceMappingURL=.*$", "");
      String lower = js.toLowerCase(Locale.ROOT);
      if (lower.contains("</script") || lower.contains("<!--")) {
        throw new IllegalStateException(path + " contains '</script' or '<!--' and cannot be"
            + " inlined into an HTML page as it is");
      }
      return js;
    }

    private static InputStream open(String path) throws IOException {
      InputStream in = ChartJs.class.getClassLoader().getResourceAsStream(path);
      if (in == null) {
        throw new IOException("'" + path + "' is not on the classpath (the chart.js webjar is"
            + " missing)");
      }
      return in;
    }
  }
}
