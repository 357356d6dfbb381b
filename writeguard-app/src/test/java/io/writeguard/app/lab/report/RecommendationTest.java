package io.writeguard.app.lab.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.app.lab.result.LabReport.LatencyMs;
import io.writeguard.app.lab.result.LabReport.ProcessesPoint;
import io.writeguard.app.lab.result.RoundMedians;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The recommender on hand-built rows: what it says follows from the numbers, nothing else. */
class RecommendationTest {
  private static final Set<String> NAIVE = Set.of("naive");

  /** A row: ops/s, p99 ms, lost, attempts and conflicts. */
  private static StrategyResult row(String name, double opsS, double p99, long lost,
      long attempts, long conflicts) {
    long acked = (long) (opsS * 9);
    return new StrategyResult(name, acked, lost, 0, opsS, new LatencyMs(p99 / 4, p99, p99 * 2),
        attempts == 0 ? 0 : (double) conflicts / attempts, conflicts, attempts, conflicts,
        acked, acked - lost, 9.0, null);
  }

  private static StrategyResult withErrors(StrategyResult r, long errors) {
    return new StrategyResult(r.strategy(), r.acknowledged(), r.lostUpdates(), errors,
        r.throughputOpsS(), r.latencyMs(), r.conflictRatio(), r.retries(), r.attempts(),
        r.conflicts(), r.expected(), r.visible(), r.elapsedS(), "boom", null, 0, 0, Map.of());
  }

  @Test
  void atomicFirstWithItsSpeedOverTheBestReaderThenTheReaderThenALockAcrossProcesses() {
    List<String> lines = Recommendation.lines(List.of(
        row("naive", 2000, 20, 500, 0, 0),
        row("atomic", 3100, 4, 0, 0, 0),
        row("optimistic", 1000, 4, 0, 1200, 200),
        row("mongo-lock", 500, 90, 0, 0, 0)), NAIVE);

    assertThat(lines.get(0)).isEqualTo("recommendation: atomic fits this change (no read"
        + " needed): 3.1x optimistic, 0 lost, p99 4.00 ms; optimistic if you must read (0 lost,"
        + " p99 4.00 ms, 16.7% conflicts); a lock (mongo-lock: 0.5x optimistic, p99 90.0 ms) only"
        + " across processes with long work between read and write");
    assertThat(lines).anySatisfy(l -> assertThat(l).contains("never: naive (lost 500"));
  }

  @Test
  void anAtomicStrategySlowerThanTheBestReaderSaysSo() {
    List<String> lines = Recommendation.lines(List.of(
        row("atomic", 400, 5, 0, 0, 0),
        row("optimistic", 1000, 9, 0, 900, 10)), Set.of());

    assertThat(lines.get(0)).contains("atomic fits this change (no read needed): 0.4x optimistic"
        + " (slower here, where optimistic's group commit batches this process's updates; still"
        + " no read and no retry)");
  }

  @Test
  void aStrategyThatLostIsNeverRecommendedHoweverFast() {
    List<String> lines = Recommendation.lines(List.of(
        row("atomic", 1000, 5, 0, 0, 0),
        row("optimistic", 800, 9, 0, 900, 10),
        row("local-lock", 9000, 1, 42, 0, 0)), Set.of());

    assertThat(lines.get(0)).contains("atomic fits", "1.3x optimistic", "optimistic if you must read")
        .doesNotContain("local-lock");
    assertThat(lines).anySatisfy(l -> assertThat(l).contains("never: local-lock (lost 42"));
  }

  @Test
  void withoutAnAtomicRowTheFastestCleanReaderIsTheChoiceAndALocalLockSaysOneProcess() {
    List<String> lines = Recommendation.lines(List.of(
        row("optimistic", 800, 9, 0, 900, 300),
        row("local-lock", 1200, 30, 0, 0, 0),
        row("adaptive", 1050, 12, 0, 1000, 40)), Set.of()); // more than 10% behind: no tie

    assertThat(lines.get(0)).isEqualTo("recommendation: local-lock for this change (0 lost,"
        + " p99 30.0 ms, one process only)");
  }

  @Test
  void aStrategyThatFailedMoreThanOnePercentIsNoCandidate() {
    List<String> lines = Recommendation.lines(List.of(
        withErrors(row("atomic", 5000, 2, 0, 0, 0), 1000),
        row("optimistic", 800, 9, 0, 900, 10)), Set.of());

    assertThat(lines.get(0)).startsWith("recommendation: optimistic for this change")
        .doesNotContain("atomic");
  }

  @Test
  void whenEveryStrategyLostThereIsNoRecommendation() {
    List<String> lines = Recommendation.lines(List.of(
        row("naive", 2000, 20, 5, 0, 0), row("local-lock", 1000, 3, 1, 0, 0)), NAIVE);

    assertThat(lines.get(0)).startsWith("recommendation: none");
    assertThat(lines.get(1)).contains("never: naive (lost 5", "local-lock (lost 1 acknowledged update)");
  }

  @Test
  void aRetryStormIsWarnedAboveTenPercentConflictsOnly() {
    List<String> warnings = Recommendation.stormWarnings(List.of(
        row("naive", 2000, 20, 5, 0, 0),
        row("optimistic", 800, 120, 0, 1000, 345),
        row("adaptive", 900, 30, 0, 1000, 100)), NAIVE);

    assertThat(warnings).containsExactly("warning: retry storm: optimistic: 34.5% of 1,000"
        + " attempts conflicted (above 10%), 345 retries, p99 120 ms; queue the hot document"
        + " (adaptive, a lock) or change it with one atomic update");
  }

  private static StrategyResult unsteady(StrategyResult r, double spread) {
    return r.withFigures(Map.of(RoundMedians.SPREAD_PCT, spread, RoundMedians.UNSTEADY, true));
  }

  @Test
  void readersWithinTenPercentOfTheFastestAreATieAndTheSimplestIsNamedWithTheOthers() {
    List<String> lines = Recommendation.lines(List.of(
        row("atomic", 1000, 4, 0, 0, 0),
        row("optimistic", 1300, 4, 0, 0, 0),
        row("local-lock", 1400, 4, 0, 0, 0),
        row("adaptive", 1350, 4, 0, 0, 0)), NAIVE);

    // 1300 is within 10% of 1400: the run cannot tell them apart, so the one with the fewest
    // moving parts is named, whichever of the three the noise put first.
    assertThat(lines.get(0)).contains("optimistic if you must read (0 lost, p99 4.00 ms;"
        + " local-lock 1.08x, adaptive 1.04x of it: within the noise)");
  }

  @Test
  void aReaderMoreThanTenPercentFasterWinsOutright() {
    List<String> lines = Recommendation.lines(List.of(
        row("atomic", 1000, 4, 0, 0, 0),
        row("optimistic", 1200, 4, 0, 0, 0),
        row("local-lock", 1400, 4, 0, 0, 0)), NAIVE);

    assertThat(lines.get(0)).contains("local-lock if you must read (0 lost, p99 4.00 ms,"
        + " one process only)");
  }

  @Test
  void anUnsteadyChoiceSaysTheLabDoesNotStandBehindIt() {
    List<String> lines = Recommendation.lines(List.of(
        row("atomic", 1000, 4, 0, 0, 0),
        unsteady(row("optimistic", 1300, 4, 0, 0, 0), 31.0)), NAIVE);

    assertThat(lines.get(0)).contains("optimistic if you must read (0 lost, p99 4.00 ms,"
        + " [UNSTEADY +-31%]: no finding)");
  }

  @Test
  void acrossProcessesTheChoiceAtEachCountAndEachReadersRatioFromFirstToLastAreSaid() {
    List<ProcessesPoint> points = List.of(
        new ProcessesPoint(1, 16, List.of(row("naive", 2000, 2, 10, 0, 0),
            row("atomic", 1000, 4, 0, 0, 0), row("optimistic", 1300, 4, 0, 0, 0),
            row("local-lock", 1500, 4, 0, 0, 0), row("mongo-lock", 900, 5, 0, 0, 0))),
        new ProcessesPoint(4, 16, List.of(row("naive", 2000, 2, 10, 0, 0),
            row("atomic", 1000, 4, 0, 0, 0), row("optimistic", 700, 9, 0, 1000, 57),
            row("local-lock", 1600, 4, 300, 0, 0), row("mongo-lock", 800, 6, 0, 0, 0))));

    List<String> lines = Recommendation.acrossProcesses(points,
        n -> n > 1 ? Set.of("naive", "local-lock") : NAIVE);

    assertThat(lines.get(0)).isEqualTo("with several instances (16 clients in all), if you must"
        + " read: 1 process local-lock 1.50x atomic; 4 processes mongo-lock 0.80x atomic");
    assertThat(lines.get(1)).startsWith("  the choice changes from local-lock at 1 process to"
        + " mongo-lock at 4");
    assertThat(lines.get(2)).isEqualTo("  vs atomic from 1 process to 4: optimistic 1.30x ->"
        + " 0.70x, local-lock 1.50x -> 1.60x [LOST 300], mongo-lock 0.90x -> 0.80x");
    assertThat(lines.get(3)).isEqualTo("  never with several instances: local-lock (lost 300,"
        + " it locks one process only)");
    assertThat(Recommendation.acrossProcesses(points.subList(0, 1), n -> NAIVE)).isEmpty();
  }
}
