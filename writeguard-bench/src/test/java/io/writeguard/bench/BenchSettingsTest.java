package io.writeguard.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchSettingsTest {
  private static final Duration SECOND = Duration.ofSeconds(1);

  @Test
  void refusesBadSettingsNamingTheValue() {
    assertThatThrownBy(() -> new Bench.Settings(List.of("nope"), 4, 1, 1, SECOND, SECOND))
        .hasMessageContaining("'nope'").hasMessageContaining(AtomicInc.NAME);
    assertThatThrownBy(() -> new Bench.Settings(Contenders.DEFAULT, 2, 3, 1, SECOND, SECOND))
        .hasMessageContaining("processes").hasMessageContaining("was 3");
    assertThatThrownBy(() -> new Bench.Settings(Contenders.DEFAULT, 0, 1, 1, SECOND, SECOND))
        .hasMessageContaining("clients").hasMessageContaining("was 0");
    assertThatThrownBy(() -> BenchMain.parseDuration("--duration", "2 hours"))
        .hasMessageContaining("--duration").hasMessageContaining("'2 hours'");
  }

  @Test
  void spreadsClientsEvenlyOverProcesses() {
    Bench.Settings settings = new Bench.Settings(Contenders.DEFAULT, 7, 3, 1, SECOND, SECOND);
    Bench bench = new Bench(settings, null, List.of(new Noop(), new Noop(), new Noop()), System.err);

    assertThat(List.of(bench.share(0), bench.share(1), bench.share(2))).containsExactly(3, 2, 2);
  }

  @Test
  void medianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
    assertThat(ContenderSummary.median(new double[] {4, 1, 3, 100})).isEqualTo(3.5);
    assertThat(ContenderSummary.median(new double[] {5, 1, 100})).isEqualTo(5);
  }

  private static final class Noop implements ClientGroup {
    @Override
    public java.util.concurrent.CompletableFuture<RoundPart> start(String contender,
        List<org.bson.types.ObjectId> docs, int clients, Duration duration) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void close() {}
  }
}
