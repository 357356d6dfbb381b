package io.writeguard.app.lab.result;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.writeguard.app.lab.result.LabReport.LatencyMs;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RoundMediansTest {

  private static StrategyResult round(String name, double opsS, double p99, double max,
      long acked, long lost, long minTotal) {
    return new StrategyResult(name, acked, lost, 1, opsS, new LatencyMs(p99 / 2, p99, max),
        0.5, 2, acked + 2, 1, acked, acked - lost, 1.0, null, null, 0, 0,
        Map.of("min_total", minTotal, "final_total", 10L));
  }

  @Test
  void speedsAreMediansAndCountsAreSums() {
    StrategyResult r = RoundMedians.combine(List.of(
        round("atomic", 100, 9, 40, 10, 0, 5),
        round("atomic", 3000, 1, 12, 20, 1, 2),
        round("atomic", 200, 4, 90, 30, 0, 7)));

    assertThat(r.throughputOpsS()).isEqualTo(200);
    assertThat(r.latencyMs().p99()).isEqualTo(4);
    assertThat(r.latencyMs().p50()).isEqualTo(2);
    assertThat(r.latencyMs().max()).isEqualTo(90);
    assertThat(r.acknowledged()).isEqualTo(60);
    assertThat(r.lostUpdates()).isEqualTo(1);
    assertThat(r.errors()).isEqualTo(3);
    assertThat(r.attempts()).isEqualTo(66);
    assertThat(r.conflicts()).isEqualTo(3);
    assertThat(r.conflictRatio()).isEqualTo(0.0455);
    assertThat(r.elapsedS()).isEqualTo(3.0);
    assertThat(r.figures()).containsEntry("min_total", 2L).containsEntry("final_total", 30L)
        .containsEntry("throughput_by_round", List.of(100.0, 3000.0, 200.0))
        .containsEntry("p99_ms_by_round", List.of(9.0, 1.0, 4.0));
  }

  private static StrategyResult locked(LatencyMs lockWait, long timeouts, long fenced) {
    return new StrategyResult("mongo-lock", 10, 0, timeouts, 5, new LatencyMs(1, 2, 3), 0, 0,
        10, 0, 10, 10, 1.0, null, lockWait, timeouts, fenced, Map.of());
  }

  @Test
  void lockWaitsAreMediansAndLockCountsAreSums() {
    StrategyResult r = RoundMedians.combine(List.of(
        locked(new LatencyMs(1, 10, 20), 1, 0),
        locked(null, 0, 2),
        locked(new LatencyMs(3, 30, 90), 2, 1),
        locked(new LatencyMs(2, 20, 25), 0, 0)));

    // Rounds without a lock wait are left out of the medians: (1, 2, 3) and (10, 20, 30).
    assertThat(r.lockWaitMs()).isEqualTo(new LatencyMs(2, 20, 90));
    assertThat(r.lockTimeouts()).isEqualTo(3);
    assertThat(r.fencedRejections()).isEqualTo(3);
  }

  @Test
  void roundsWithoutLocksHaveNoLockWait() {
    StrategyResult r = RoundMedians.combine(List.of(
        round("atomic", 1, 1, 1, 1, 0, 0), round("atomic", 2, 2, 2, 2, 0, 0)));
    assertThat(r.lockWaitMs()).isNull();
    assertThat(r.lockTimeouts()).isZero();
    assertThat(r.fencedRejections()).isZero();
  }

  @Test
  void anEvenCountTakesTheMeanOfTheMiddleTwo() {
    assertThat(RoundMedians.median(List.of(4.0, 1.0, 3.0, 100.0))).isEqualTo(3.5);
  }

  @Test
  void oneRoundIsReturnedAsItIs() {
    StrategyResult only = round("atomic", 100, 9, 40, 10, 0, 5);
    assertThat(RoundMedians.combine(List.of(only))).isSameAs(only);
  }

  @Test
  void roundsOfDifferentStrategiesAreRefused() {
    assertThatThrownBy(() -> RoundMedians.combine(List.of(
        round("atomic", 1, 1, 1, 1, 0, 0), round("naive", 1, 1, 1, 1, 0, 0))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'naive'");
  }

  @Test
  void roundsWithinFifteenPercentOfTheirMedianAreSteady() {
    StrategyResult r = RoundMedians.combine(List.of(
        round("atomic", 1000, 1, 2, 10, 0, 0),
        round("atomic", 870, 1, 2, 10, 0, 0),
        round("atomic", 1150, 1, 2, 10, 0, 0)));

    assertThat(r.figures()).containsEntry(RoundMedians.SPREAD_PCT, 15.0)
        .containsEntry(RoundMedians.UNSTEADY, false);
    assertThat(r.unsteady()).isFalse();
    assertThat(r.steadinessMarker()).isEmpty();
  }

  @Test
  void aRoundMoreThanFifteenPercentOffTheMedianMakesTheStrategyUnsteady() {
    // The first run of issue 32: optimistic's rounds 7,411 -> 8,538 -> 12,915.
    StrategyResult r = RoundMedians.combine(List.of(
        round("optimistic", 7411, 1, 2, 10, 0, 0),
        round("optimistic", 8538, 1, 2, 10, 0, 0),
        round("optimistic", 12915, 1, 2, 10, 0, 0)));

    assertThat(r.throughputOpsS()).isEqualTo(8538);
    assertThat(r.figures()).containsEntry(RoundMedians.SPREAD_PCT, 51.3)
        .containsEntry(RoundMedians.UNSTEADY, true);
    assertThat(r.unsteady()).isTrue();
    assertThat(r.spreadPct()).contains(51.3);
    assertThat(r.steadinessMarker()).isEqualTo("[UNSTEADY +-51%]");
  }

  @Test
  void aSingleRoundIsNotJudged() {
    StrategyResult r = RoundMedians.combine(List.of(round("atomic", 1000, 1, 2, 10, 0, 0)));

    assertThat(r.figures()).doesNotContainKeys(RoundMedians.SPREAD_PCT, RoundMedians.UNSTEADY);
    assertThat(r.unsteady()).isFalse();
  }
}
