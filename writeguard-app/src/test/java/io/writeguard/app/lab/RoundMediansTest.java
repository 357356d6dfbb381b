package io.writeguard.app.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RoundMediansTest {

  private static StrategyResult round(String name, double opsS, double p99, double max,
      long acked, long lost, long minTotal) {
    return new StrategyResult(name, acked, lost, 1, opsS, new LatencyMs(p99 / 2, p99, max),
        0.5, 2, acked + 2, 1, acked, acked - lost, 1.0, null,
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
}
