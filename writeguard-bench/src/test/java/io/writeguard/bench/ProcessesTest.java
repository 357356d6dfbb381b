package io.writeguard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code --processes 2}: two child JVMs on the same servers each run half the clients; the
 * parent merges their acknowledged operations and checks them all in the one document.
 */
class ProcessesTest {

  @Test
  void clientsSpreadOverTwoChildJvmsLoseNothingAndAreAllCounted() {
    Bench.Settings settings = new Bench.Settings(List.of(WriteGuardOptimistic.NAME), 4, 2, 1,
        Duration.ZERO, Duration.ofMillis(500));
    try (Backends backends = TestServers.backends();
        ClientGroup first = ChildProcessGroup.start(0, 2, TestServers.mongoUri(),
            backends.collectionName(), null);
        ClientGroup second = ChildProcessGroup.start(1, 2, TestServers.mongoUri(),
            backends.collectionName(), null)) {
      ByteArrayOutputStream progress = new ByteArrayOutputStream();
      Bench.Result result = new Bench(settings, backends.hot(), List.of(first, second),
          new PrintStream(progress, true, StandardCharsets.UTF_8)).run();

      ContenderSummary summary = result.summaries().get(0);
      assertThat(summary.errors()).as("errors (first: %s)", summary.errorSample()).isZero();
      assertThat(summary.acked()).isPositive();
      assertThat(summary.lost()).isZero();
      assertThat(progress.toString(StandardCharsets.UTF_8)).contains("round 1/1");
    }
  }
}
