package io.writeguard.app.lab.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.writeguard.app.lab.report.ResultTable.ClosingNote;
import io.writeguard.app.lab.result.LabReport;
import io.writeguard.app.lab.result.LabReport.ProcessesPoint;
import io.writeguard.app.lab.result.RoundMedians;
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

  private static Map<String, Object> rounds(boolean unsteady, double spread) {
    return Map.of("throughput_ops_s_range", List.of(800.0, 1200.0), "p99_ms_range",
        List.of(1.0, 2.0), RoundMedians.SPREAD_PCT, spread, RoundMedians.UNSTEADY, unsteady);
  }

  @Test
  void anUnsteadyStrategyIsMarkedAndItsRatioAndTheRatiosToAnUnsteadyBaselineCarryATilde() {
    LabReport report = report(List.of(
        result("atomic", 1_000, 0, null, 0, rounds(false, 9.0)),
        result("optimistic", 1_300, 0, null, 0, rounds(true, 23.4)),
        result("adaptive", 1_250, 0, null, 0, rounds(false, 4.0))));

    String table = ResultTable.render(report, Set.of());

    assertThat(table).containsPattern("optimistic \\[UNSTEADY \\+-23%] .* ~1\\.30x ")
        .containsPattern("\\Radaptive +12,345 .* 1\\.25x ")
        .contains("[UNSTEADY +-n%]: a round was n% off the median (more than +-15%)");
    String note = ClosingNote.render(report, Set.of());
    assertThat(note).contains("optimistic ~1.30x [UNSTEADY +-23%]", "adaptive 1.25x");

    LabReport baseUnsteady = report(List.of(
        result("atomic", 1_000, 0, null, 0, rounds(true, 30.0)),
        result("adaptive", 1_250, 0, null, 0, rounds(false, 4.0))));
    assertThat(ResultTable.render(baseUnsteady, Set.of())).contains("~1.25x");
    assertThat(ClosingNote.render(baseUnsteady, Set.of()))
        .contains("(1,000 ops/s, [UNSTEADY +-30%])", "adaptive ~1.25x");
  }

  @Test
  void theJsonOfAResultSaysWhetherItsRoundsWereSteady() throws Exception {
    LabReport report = report(List.of(
        result("optimistic", 1_300, 0, null, 0, rounds(true, 23.4))));

    var json = new ObjectMapper().readTree(new ObjectMapper().writeValueAsString(report));
    var r = json.get("results").get(0);
    assertThat(r.get("unsteady").asBoolean()).isTrue();
    assertThat(r.get("throughput_spread_pct").asDouble()).isEqualTo(23.4);
    assertThat(json.has("by_processes")).isFalse();
  }

  @Test
  void severalProcessCountsAreInTheJsonEachWithItsResultsAndTheLastIsTheReportsOwn()
      throws Exception {
    StrategyResult one = result("optimistic", 1_300, 0, null, 0, rounds(false, 3.0));
    StrategyResult four = result("optimistic", 700, 0, null, 0, rounds(true, 40.0));
    LabReport report = report(List.of(four)).withProcesses(4).withProcessCounts(List.of(
        new ProcessesPoint(1, 16, List.of(one)), new ProcessesPoint(4, 16, List.of(four))));

    var json = new ObjectMapper().readTree(new ObjectMapper().writeValueAsString(report));
    assertThat(json.get("processes").asInt()).isEqualTo(4);
    assertThat(json.get("results").get(0).get("throughput_ops_s").asDouble()).isEqualTo(700);
    var by = json.get("by_processes");
    assertThat(by).hasSize(2);
    assertThat(by.get(0).get("processes").asInt()).isEqualTo(1);
    assertThat(by.get(0).get("clients").asInt()).isEqualTo(16);
    assertThat(by.get(0).get("results").get(0).get("throughput_ops_s").asDouble())
        .isEqualTo(1_300);
    assertThat(by.get(0).get("results").get(0).get("unsteady").asBoolean()).isFalse();
    assertThat(by.get(1).get("processes").asInt()).isEqualTo(4);
    assertThat(by.get(1).get("results").get(0).get("unsteady").asBoolean()).isTrue();
  }
}
