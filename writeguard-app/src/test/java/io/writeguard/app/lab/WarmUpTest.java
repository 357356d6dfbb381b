package io.writeguard.app.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The warm-up's decisions, on scripted slice speeds: when a strategy counts as warm. */
class WarmUpTest {

  /** Runs a warm-up whose strategy k answers the speeds of {@code speeds[k]} in turn. */
  private static List<List<Double>> run(Duration cap, List<List<Double>> speeds,
      List<String> calls, List<Integer> extra) {
    return new WarmUp(cap).run(speeds.size(), (k, length) -> {
      calls.add(k + "@" + length.toMillis());
      List<Double> own = speeds.get(k);
      int i = (int) calls.stream().filter(c -> c.startsWith(k + "@")).count() - 1;
      return own.get(Math.min(i, own.size() - 1));
    }, extra::add);
  }

  @Test
  void aStrategyWarmsUntilTwoSlicesInARowAreEachLessThanFivePercentFasterThanTheOneBefore() {
    List<String> calls = new ArrayList<>();
    List<Integer> extra = new ArrayList<>();
    // Strategy 0 rises 50%, 20%, then 4% and 2%: warm after its 5th slice. Strategy 1 is flat
    // from its first slice: warm after the three slices every strategy runs.
    List<List<Double>> out = run(Duration.ofSeconds(10),
        List.of(List.of(100.0, 150.0, 180.0, 187.0, 190.0, 300.0),
            List.of(500.0, 510.0, 505.0, 900.0)),
        calls, extra);

    assertThat(out.get(0)).containsExactly(100.0, 150.0, 180.0, 187.0, 190.0);
    assertThat(out.get(1)).containsExactly(500.0, 510.0, 505.0);
    // Passes over all strategies in plan order; later passes only for those still rising.
    assertThat(calls).containsExactly("0@1000", "1@1000", "0@1000", "1@1000", "0@1000",
        "1@1000", "0@1000", "0@1000");
    assertThat(extra).containsExactly(1, 1);
  }

  @Test
  void oneSlowSliceInTheMiddleOfARiseDoesNotEndTheWarmUp() {
    // The loaded machine's case: 1,011 -> 1,498 -> 2,742 -> 2,169 looked warm after one slice.
    List<List<Double>> out = run(Duration.ofSeconds(10),
        List.of(List.of(1011.0, 1498.0, 2742.0, 2169.0, 3900.0, 4000.0, 4050.0, 9000.0)),
        new ArrayList<>(), new ArrayList<>());

    assertThat(out.get(0)).containsExactly(1011.0, 1498.0, 2742.0, 2169.0, 3900.0, 4000.0,
        4050.0);
  }

  @Test
  void aStrategyThatKeepsRisingStopsAtTheCap() {
    List<String> calls = new ArrayList<>();
    List<List<Double>> out = run(Duration.ofSeconds(3),
        List.of(List.of(100.0, 200.0, 400.0, 800.0, 1600.0)), calls, new ArrayList<>());

    assertThat(out.get(0)).containsExactly(100.0, 200.0, 400.0); // 3 slices of 1 s
  }

  @Test
  void everyStrategyRunsThreeSlicesEvenWhenTheFirstIsTheFastest() {
    List<List<Double>> out = run(Duration.ofSeconds(5),
        List.of(List.of(900.0, 100.0, 100.0, 100.0)), new ArrayList<>(), new ArrayList<>());
    // (100 after 900 did not rise, nor 100 after 100: warm after the third.)

    assertThat(out.get(0)).containsExactly(900.0, 100.0, 100.0);
  }

  @Test
  void aShortCapRunsThreeShorterSlicesAndZeroRunsNothing() {
    List<String> calls = new ArrayList<>();
    run(Duration.ofMillis(1500), List.of(List.of(1.0, 2.0, 4.0, 8.0)), calls,
        new ArrayList<>());
    assertThat(calls).containsExactly("0@500", "0@500", "0@500");

    List<String> none = new ArrayList<>();
    assertThat(run(Duration.ZERO, List.of(List.of(1.0)), none, new ArrayList<>()).get(0))
        .isEmpty();
    assertThat(none).isEmpty();
  }

  @Test
  void stillRisingNeedsThreeSlicesAndAGainAboveFivePercentInOneOfTheLastTwo() {
    assertThat(WarmUp.stillRising(List.of())).isTrue();
    assertThat(WarmUp.stillRising(List.of(100.0, 90.0))).isTrue();
    assertThat(WarmUp.stillRising(List.of(50.0, 100.0, 106.0))).isTrue();
    assertThat(WarmUp.stillRising(List.of(50.0, 100.0, 104.0))).isTrue(); // 50 -> 100 rose
    assertThat(WarmUp.stillRising(List.of(100.0, 104.0, 105.0))).isFalse();
    assertThat(WarmUp.stillRising(List.of(100.0, 80.0, 70.0))).isFalse();
    assertThat(WarmUp.stillRising(List.of(100.0, 80.0, 85.0))).isTrue(); // 80 -> 85: 6%
    assertThat(WarmUp.sliceOf(Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(1));
  }
}
