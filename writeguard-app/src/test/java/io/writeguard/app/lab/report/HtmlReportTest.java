package io.writeguard.app.lab.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.writeguard.app.lab.api.BalanceSettings;
import io.writeguard.app.lab.report.HtmlReport.ChartJs;
import io.writeguard.app.lab.result.LabReport;
import io.writeguard.app.lab.result.LabReport.LatencyMs;
import io.writeguard.app.lab.result.LabReport.ProcessesPoint;
import io.writeguard.app.lab.result.LabReport.ServerInfo;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import io.writeguard.app.lab.result.LabReport.SweepPoint;
import io.writeguard.app.lab.result.RoundMedians;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HtmlReportTest {
  private static final String EVIL = "</script><script>alert('x')</script><b onload=\"y\">&";
  @TempDir Path dir;

  private static StrategyResult result(String name, double opsS, long lost, String sample) {
    return new StrategyResult(name, 1000, lost, sample == null ? 0 : 1, opsS,
        new LatencyMs(1.5, 12.25, 30), 0.1, 3, 1003, 100, 900, 900 - lost, 10.0, sample, null, 0, 0,
        Map.of("final_total", 120L, "expected_total", 120L + lost, "min_total", 0L));
  }

  private static LabReport report(List<SweepPoint> points) {
    LabReport base = new LabReport("counter", new ServerInfo("embedded", "5.0.0"), 16, 1, 10.0,
        null, 1.0, 42, points.get(0).results(), 1, BalanceSettings.DEFAULTS, null, true);
    return base.withSweep(points);
  }

  private static String dataBlock(String page) {
    String open = "<script type=\"application/json\" id=\"lab-data\">";
    int start = page.indexOf(open) + open.length();
    return page.substring(start, page.indexOf("</script>", start));
  }

  @Test
  void thePageCarriesChartJsTheChartsTheDataAndTheLostUpdatesTable() throws Exception {
    LabReport report = report(List.of(new SweepPoint(16, List.of(
        result("naive", 300, 42, null), result("atomic", 1500, 0, null),
        result("sharded-docs", 1800, 0, null)))));
    String page = HtmlReport.render(report, Set.of("naive"));

    assertThat(page).startsWith("<!DOCTYPE html>");
    assertThat(page).contains("Chart.js v" + ChartJs.version(), "new Chart(");
    assertThat(page).doesNotContain("sourceMappingURL", "<script src=", "http://", "https://cdn");
    assertThat(page).contains("<canvas id=\"chart-throughput\"", "<canvas id=\"chart-p99\"",
        "<canvas id=\"chart-ratio\"");
    assertThat(page).contains("<h2>Lost updates</h2>", "<td>sharded-docs</td>",
        "42 (4.7%)", "(shows the problem)", "<th>final total</th>", "<th>min total</th>");
    assertThat(page.indexOf("<table>")).isLessThan(page.lastIndexOf("</table>"));
    JsonNode data = new ObjectMapper().readTree(dataBlock(page));
    assertThat(data.get("scenario").asText()).isEqualTo("counter");
    assertThat(data.get("results").get(1).get("throughput_ops_s").asDouble()).isEqualTo(1500);
    assertThat(data.get("results").get(0).get("final_total").asLong()).isEqualTo(120);
  }

  @Test
  void lockColumnsAppearOnlyWhenAStrategyTookALock() throws Exception {
    StrategyResult locked = new StrategyResult("mongo-lock", 1000, 0, 2, 400,
        new LatencyMs(1.5, 12.25, 30), 0, 0, 1000, 0, 900, 900, 10.0, "timed out",
        new LatencyMs(0.5, 7.75, 20), 2, 1, 3, Map.of());
    String page = HtmlReport.render(report(List.of(new SweepPoint(16,
        List.of(result("atomic", 1500, 0, null), locked)))), Set.of());
    assertThat(page).contains("<th>lock wait p99 ms</th>", "<td>7.75</td>",
        "<th>lock violations</th>", "<td class=\"bad\">3</td>",
        "colspan=\"14\">e.g. timed out");
    JsonNode data = new ObjectMapper().readTree(dataBlock(page));
    JsonNode r = data.get("results").get(1);
    assertThat(r.get("lock_wait_ms").get("p99").asDouble()).isEqualTo(7.75);
    assertThat(r.get("lock_timeouts").asLong()).isEqualTo(2);
    assertThat(r.get("fenced_rejections").asLong()).isEqualTo(1);
    assertThat(r.get("lock_violations").asLong()).isEqualTo(3);

    String without = HtmlReport.render(report(List.of(new SweepPoint(16,
        List.of(result("atomic", 1500, 0, null))))), Set.of());
    assertThat(without).doesNotContain("lock wait p99");
  }

  @Test
  void aSweepGetsLineChartsOverTheClientCounts() throws Exception {
    LabReport report = report(List.of(
        new SweepPoint(1, List.of(result("atomic", 900, 0, null))),
        new SweepPoint(64, List.of(result("atomic", 1500, 0, null)))));
    String page = HtmlReport.render(report, Set.of());

    assertThat(page).contains("type: 'line'", "by client count");
    JsonNode data = new ObjectMapper().readTree(dataBlock(page));
    assertThat(data.get("sweep")).hasSize(2);
    assertThat(data.get("sweep").get(1).get("clients").asInt()).isEqualTo(64);
  }

  @Test
  void nothingFromTheReportReachesThePageUnescaped() throws Exception {
    LabReport report = report(List.of(new SweepPoint(16, List.of(
        result(EVIL, 1000, 1, EVIL), result("atomic", 1000, 0, null)))));
    String page = HtmlReport.render(report, Set.of());

    assertThat(page).doesNotContain(EVIL, "<script>alert", "<b onload", "alert('x')</script>");
    assertThat(page).contains("&lt;/script&gt;&lt;script&gt;alert(&#39;x&#39;)");
    // The JSON block stays one block, and reads back to the original strings.
    String block = dataBlock(page);
    assertThat(block).doesNotContain("<", ">").contains("\\u003c/script\\u003e");
    JsonNode data = new ObjectMapper().readTree(block);
    assertThat(data.get("results").get(0).get("strategy").asText()).isEqualTo(EVIL);
    assertThat(data.get("results").get(0).get("error_sample").asText()).isEqualTo(EVIL);
    // Every <script> opened is closed once: Chart.js, the data, the chart code.
    assertThat(page.split("<script", -1)).hasSize(4);
    assertThat(page.split("</script>", -1)).hasSize(4);
  }

  @Test
  void escapesCoverHtmlAndScriptContexts() {
    assertThat(HtmlReport.escapeHtml("<a href=\"x\">'&'</a>"))
        .isEqualTo("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    assertThat(HtmlReport.escapeJsonForScript("{\"s\":\"</script>&\u2028\"}"))
        .isEqualTo("{\"s\":\"\\u003c/script\\u003e\\u0026\\u2028\"}");
  }

  @Test
  void writeProducesTheSameSelfContainedFile() throws Exception {
    LabReport report = report(List.of(new SweepPoint(4, List.of(result("atomic", 10, 0, null)))));
    Path file = dir.resolve("r.html");
    HtmlReport.write(file, report, Set.of());
    assertThat(Files.readString(file)).isEqualTo(HtmlReport.render(report, Set.of()));
    assertThat(Files.size(file)).isGreaterThan(150_000); // Chart.js is inlined
  }

  @Test
  void aStrategyThatLostUpdatesIsHatchedRedMarkedAndExplainedAndLostUpdatesHaveAChart() {
    LabReport report = report(List.of(new SweepPoint(16, List.of(
        result("naive", 9000, 42, null), result("atomic", 1500, 0, null)))));
    String page = HtmlReport.render(report, Set.of("naive"));

    assertThat(page).contains("<canvas id=\"chart-lost\"", "lost: {label: 'lost updates'");
    assertThat(page).contains("naive <span class=\"flag\">LOST 42</span>",
        "<tr class=\"flagged\">", "<td>atomic</td>");
    assertThat(page).contains("<p class=\"legend\"><span class=\"swatch\"></span>Hatched red",
        "Its speed is no result");
    assertThat(page).contains("createPattern", "bad(find(points[0], s)) ? hatch : color(s)");
  }

  @Test
  void aCleanRunHasNoLegendAndThePageAndItsTablesStayWithin1400Pixels() {
    LabReport report = report(List.of(new SweepPoint(16, List.of(
        result("atomic", 1500, 0, null), result("sharded-docs", 1800, 0, null)))));
    String page = HtmlReport.render(report, Set.of());

    assertThat(page).doesNotContain("class=\"legend\"", "class=\"flag\"");
    assertThat(page).contains("max-width: 1400px", ".table { max-width: 100%; overflow-x: auto; }",
        "<div class=\"table\"><table>");
  }

  @Test
  void anUnsteadyStrategyHasItsBadgeATildeOnItsRatioAndTheJsonFlag() throws Exception {
    StrategyResult shaky = result("sharded-docs", 1800, 0, null).withFigures(Map.of(
        RoundMedians.SPREAD_PCT, 27.0, RoundMedians.UNSTEADY, true));
    String page = HtmlReport.render(report(List.of(new SweepPoint(16, List.of(
        result("atomic", 1500, 0, null), shaky)))), Set.of());

    assertThat(page).contains("<span class=\"unsteady\">[UNSTEADY +-27%]</span>", "~1.20x",
        "a round of the strategy was n% off its median (more than +-15%)");
    JsonNode data = new ObjectMapper().readTree(dataBlock(page));
    assertThat(data.get("results").get(1).get("unsteady").asBoolean()).isTrue();
    assertThat(data.get("results").get(1).get("throughput_spread_pct").asDouble())
        .isEqualTo(27.0);

    String steady = HtmlReport.render(report(List.of(new SweepPoint(16, List.of(
        result("atomic", 1500, 0, null), result("sharded-docs", 1800, 0, null))))), Set.of());
    assertThat(steady).doesNotContain("<span class=\"unsteady\">", "~1.20x").contains("1.20x");
  }

  @Test
  void severalProcessCountsEachHaveTheirRowsInTheTable() {
    LabReport one = report(List.of(new SweepPoint(16, List.of(
        result("atomic", 1500, 0, null), result("sharded-docs", 1800, 0, null)))));
    LabReport report = one.withProcessCounts(List.of(
        new ProcessesPoint(1, 16, List.of(result("atomic", 1500, 0, null))),
        new ProcessesPoint(4, 16, List.of(result("atomic", 700, 0, null)))));

    String page = HtmlReport.render(report, Set.of());

    assertThat(page).contains("<td>16 in 1 process</td><td>atomic", "<td>16 in 4 processes</td>"
        + "<td>atomic");
  }
}
