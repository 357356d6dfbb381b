package io.writeguard.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.writeguard.testing.FakeTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class ConflictMonitorTest {
  private final FakeTime time = new FakeTime();
  private final List<String> storms = new CopyOnWriteArrayList<>();
  private final OperationScope docs = new OperationScope("docs", "optimistic");

  private ConflictMonitor monitor() {
    return ConflictMonitor.builder()
        .ticker(time.ticker())
        .minAttempts(20)
        .changeKind("docs", ChangeKind.ATOMIC_EXPRESSIBLE)
        .stormListener(new StormListener() {
          @Override
          public void onStormStarted(OperationScope scope, double ratio, long attempts, String advice) {
            storms.add("start " + scope.collection() + " " + advice);
          }

          @Override
          public void onStormEnded(OperationScope scope, double ratio) {
            storms.add("end " + scope.collection());
          }
        })
        .build();
  }

  private static void run(ConflictMonitor m, OperationScope scope, int attempts, int conflictEvery) {
    for (int i = 1; i <= attempts; i++) {
      m.onAttempt(scope, "doc-" + (i % 3), 1);
      if (conflictEvery > 0 && i % conflictEvery == 1 % conflictEvery) {
        m.onConflict(scope, "doc-1", 1);
      }
    }
  }

  @Test
  void aStormIsReportedOnceWithTheAdviceForTheCollection() {
    ConflictMonitor m = monitor();
    run(m, docs, 500, 3); // 33% conflicts
    assertThat(storms).hasSize(1);
    assertThat(storms.get(0)).startsWith("start docs").contains("atomic operator");
    assertThat(m.inStorm(docs)).isTrue();
    assertThat(m.scope(docs).hottestKeys().get(0).key()).isEqualTo("doc-1");
  }

  @Test
  void noStormWithoutContention() {
    ConflictMonitor m = monitor();
    run(m, docs, 2_000, 50); // 2% conflicts
    assertThat(storms).isEmpty();
    assertThat(m.scope(docs).conflicts()).isEqualTo(40);
  }

  @Test
  void hysteresisKeepsARatioHoveringAtTheThresholdFromFlapping() {
    ConflictMonitor m = monitor();
    run(m, docs, 200, 4); // 25%: storm
    time.advance(Duration.ofSeconds(11));
    run(m, docs, 2_000, 12); // ~8%: under the threshold but above the calm line (5%)
    assertThat(storms).hasSize(1);
    time.advance(Duration.ofSeconds(11));
    run(m, docs, 2_000, 0); // quiet
    assertThat(storms).containsExactly(storms.get(0), "end docs");
  }

  @Test
  void tooFewAttemptsAreNotJudged() {
    ConflictMonitor m = monitor();
    run(m, docs, 19, 1);
    assertThat(storms).isEmpty();
  }

  @Test
  void lockEventsAreCountedPerBackend() {
    ConflictMonitor m = monitor();
    m.onLockWait("mongo", "k", Duration.ofMillis(5), true);
    m.onLockWait("mongo", "k", Duration.ofMillis(50), false);
    m.onLeaseLost("mongo", "k", 7);
    ConflictMonitor.LockSnapshot s = m.locks().get("mongo");
    assertThat(s.waits()).isEqualTo(2);
    assertThat(s.timeouts()).isEqualTo(1);
    assertThat(s.maxWait()).isEqualTo(Duration.ofMillis(50));
    assertThat(s.leasesLost()).isEqualTo(1);
  }

  @Test
  void aThrowingStormListenerDoesNotBreakTheUpdate() {
    ConflictMonitor m = ConflictMonitor.builder().minAttempts(1)
        .stormListener(new StormListener() {
          @Override
          public void onStormStarted(OperationScope scope, double ratio, long attempts, String advice) {
            throw new IllegalStateException("boom");
          }
        }).build();
    m.onAttempt(docs, "a", 1);
    m.onConflict(docs, "a", 1);
    assertThat(m.inStorm(docs)).isTrue();
  }

  @Test
  void badSettingsNameTheValue() {
    assertThatThrownBy(() -> ConflictMonitor.builder().threshold(1.5))
        .hasMessage("threshold must be between 0.0 and 1.0, was 1.5");
    assertThatThrownBy(() -> ConflictMonitor.builder().threshold(0.1).calmThreshold(0.2).build())
        .hasMessageContaining("calmThreshold must be <= threshold");
  }
}
