package io.writeguard.app.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.app.lab.LabProgress.TerminalProgress;
import io.writeguard.app.lab.result.LabReport.LatencyMs;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import io.writeguard.testing.FakeTime;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TerminalProgressTest {
  private final StringWriter text = new StringWriter();
  private final FakeTime time = new FakeTime();
  private final TerminalProgress progress =
      new TerminalProgress(new PrintWriter(text), true, time.ticker());
  private final LabStep step = new LabStep("atomic", 16, 2, 3);

  @Test
  void rewritesOneLineInPlaceAtMostEveryTwoHundredMilliseconds() {
    progress.running(step, "measuring", 2_000_000_000L, 5_000);
    progress.running(step, "measuring", 2_100_000_000L, 5_100); // too soon: not drawn
    time.advance(Duration.ofMillis(250));
    progress.running(step, "measuring", 2_250_000_000L, 9_000);

    String shown = text.toString();
    assertThat(shown).doesNotContain("\n");
    assertThat(shown.split("\r", -1)).hasSize(3); // two redraws
    assertThat(shown).contains("lab: atomic", "measuring (16 clients, round 2/3)",
        "2.0 s", "5,000 ops", "2,500 ops/s", "9,000 ops", "4,000 ops/s");
    assertThat(shown).doesNotContain("5,100 ops");
  }

  @Test
  void aFinishedStrategyLeavesItsSummaryLineAndStartsANewOne() {
    progress.running(step, "warming up with a long phase name", 1_000_000_000L, 10);
    StrategyResult r = new StrategyResult("atomic", 1234, 0, 0, 617, new LatencyMs(1, 2, 3),
        0, 0, 1234, 0, 1234, 1234, 2.0, null);
    progress.finished(step, r);

    String shown = text.toString();
    String last = shown.substring(shown.lastIndexOf('\r') + 1);
    assertThat(last).startsWith("lab: atomic       done in 2.0 s: 1,234 acknowledged, 0 lost,"
        + " 0 errors (16 clients, round 2/3)");
    assertThat(last).endsWith(System.lineSeparator());
    // Spaces wipe the longer live line that was there before.
    assertThat(last.stripTrailing().length()).isLessThan(last.length() - 1);
  }

  @Test
  void bothDisplaysSayWhichStrategyOfHowManyIsRunningAndAboutHowLongIsLeft() {
    LabStep placed = new LabStep("atomic", 16, 2, 3, 2, 7, 65_000_000_000L);
    progress.running(placed, "measuring", 1_000_000_000L, 10);
    assertThat(text.toString()).contains("measuring (16 clients, round 2/3)",
        "-- strategy 2 of 7, about 1m05s left");

    StrategyResult r = new StrategyResult("atomic", 1234, 0, 0, 617, new LatencyMs(1, 2, 3),
        0, 0, 1234, 0, 1234, 1234, 2.0, null);
    assertThat(LabProgress.summary(placed, r, false)).isEqualTo("lab: atomic       done in"
        + " 2.0 s: 1,234 acknowledged, 0 lost, 0 errors (round 2/3) -- strategy 2 of 7, about"
        + " 1m05s left");
  }
}
