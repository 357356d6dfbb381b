package io.writeguard.app.lab.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.app.lab.result.LabReport;
import io.writeguard.app.lab.result.LabReport.LatencyMs;
import io.writeguard.app.lab.result.LabReport.ServerInfo;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import io.writeguard.app.lab.result.LabReport.SweepPoint;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The plain table: markers on results that are no results, and aligned columns. */
class ResultTableTest {

  private static StrategyResult result(String name, double opsS, long lost, LatencyMs lockWait,
      long lockViolations, Map<String, Object> figures) {
    return new StrategyResult(name, 12_345, lost, 0, opsS, new LatencyMs(0.27, 96.22, 1_276),
        0.371, 5_271, 17_616, 6_345, 12_345, 12_345 - lost, 10.0, null, lockWait, 0, 0,
        lockViolations, figures);
  }

  private static LabReport report(List<StrategyResult> results) {
    return new LabReport("readinfo", new ServerInfo("embedded", "5.0.0"), 16, 1, 10.0, null,
        1.0, 42, results).withSweep(List.of(new SweepPoint(16, results)));
  }

  private static List<String> tableLines(String rendered) {
    return rendered.lines().takeWhile(l -> !l.startsWith("[")).toList();
  }

  @Test
  void aFastStrategyThatLostUpdatesCarriesALostMarkerAndTheLegendSaysItIsNoResult() {
    LabReport report = report(List.of(result("naive", 9_000, 2_294, null, 0, Map.of()),
        result("atomic", 1_811, 0, null, 0, Map.of())));

    String table = ResultTable.render(report, Set.of("naive"));

    assertThat(table).contains("naive [LOST 2,294]");
    assertThat(table).containsPattern("\\Ratomic +12,345 ");
    assertThat(table).doesNotContain("atomic [");
    assertThat(table).contains("[LOST n]: n acknowledged updates are missing at the end, so the"
        + " speed of naive is no result (it is here to show the problem)");
  }

  @Test
  void lockViolationsAndBrokenInvariantsAreMarkedToo() {
    LabReport report = report(List.of(
        result("mongo-lock", 900, 3, new LatencyMs(1, 2, 3), 4, Map.of()),
        result("sharded-docs", 950, 0, null, 0, Map.of("violations", 2L))));

    String table = ResultTable.render(report, Set.of());

    assertThat(table).contains("mongo-lock [LOST 3, LOCK VIOL. 4]", "sharded-docs [VIOLATIONS 2]",
        "[LOCK VIOL. n]: n conflicts or fenced rejections", "[VIOLATIONS n]: an invariant broke");
    assertThat(table).contains("so the speed of mongo-lock is no result").doesNotContain(
        "here to show the problem");
  }

  @Test
  void everyRowHasTheHeadersWidthAndNumbersAndDashesEndUnderTheirHeader() {
    LabReport report = report(List.of(
        result("naive", 394, 2_294, null, 0, Map.of()),
        result("atomic", 18_356, 0, null, 0, Map.of()),
        result("local-lock", 962, 0, new LatencyMs(55.7, 265, 342), 0, Map.of())));

    List<String> lines = tableLines(ResultTable.render(report, Set.of("naive")));

    assertThat(lines).hasSize(4);
    String header = lines.get(0);
    assertThat(lines).allSatisfy(l -> assertThat(l).hasSameSizeAs(header));
    // Right-aligned: each value ends where its header ends, a missing one ("-") included.
    int lockP99End = header.indexOf("lock p99 ms") + "lock p99 ms".length();
    int opsEnd = header.indexOf("ops/s") + "ops/s".length();
    assertThat(lines.get(1).substring(0, lockP99End)).endsWith(" -");
    assertThat(lines.get(3).substring(0, lockP99End)).endsWith(" 265");
    assertThat(lines.get(2).substring(0, opsEnd)).endsWith(" 18,356");
    assertThat(lines.get(1).substring(0, opsEnd)).endsWith(" 394");
  }
}
