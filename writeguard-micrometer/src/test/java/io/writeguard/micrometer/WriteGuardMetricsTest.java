package io.writeguard.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.writeguard.monitor.ConflictMonitor;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class WriteGuardMetricsTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ConflictMonitor monitor = ConflictMonitor.builder().build();
  private final WriteGuardListener listener = WriteGuardListener.composite(
      monitor, WriteGuardMetrics.builder(registry).conflictMonitor(monitor).build());
  private final OperationScope scope = new OperationScope("docs", "optimistic");

  @Test
  void updateEventsBecomeCountersTaggedByCollectionAndStrategyOnly() {
    for (int i = 0; i < 4; i++) {
      listener.onAttempt(scope, "doc-" + i, 1);
    }
    listener.onConflict(scope, "doc-1", 1);
    listener.onRetry(scope, "doc-1", 1, Duration.ofMillis(3));
    listener.onSuccess(scope, "doc-1", 2, Duration.ofMillis(12));
    listener.onExhausted(scope, "doc-2", 5, Duration.ofSeconds(1));
    listener.onFencedRejection(scope, "doc-3", 9);

    assertThat(registry.get("writeguard.update.attempts").tags("collection", "docs", "strategy", "optimistic")
        .counter().count()).isEqualTo(4);
    assertThat(registry.get("writeguard.update.conflicts").counter().count()).isEqualTo(1);
    assertThat(registry.get("writeguard.update.retries").counter().count()).isEqualTo(1);
    assertThat(registry.get("writeguard.update.exhausted").counter().count()).isEqualTo(1);
    assertThat(registry.get("writeguard.fenced.rejections").counter().count()).isEqualTo(1);
    assertThat(registry.get("writeguard.update.latency").timer().count()).isEqualTo(1);
    assertThat(registry.get("writeguard.conflict.ratio").gauge().value()).isEqualTo(0.25);
    registry.getMeters().forEach(m -> assertThat(m.getId().getTags())
        .noneMatch(t -> t.getValue().startsWith("doc-")));
  }

  @Test
  void lockEventsAreTaggedByBackendAndOutcome() {
    listener.onLockWait("redis", "k", Duration.ofMillis(2), true);
    listener.onLockWait("redis", "k", Duration.ofMillis(200), false);
    listener.onLockReleased("redis", "k", 4, Duration.ofMillis(7));
    listener.onLeaseLost("redis", "k", 4);
    listener.onTransactionRetry("TransientTransactionError", 1);

    assertThat(registry.get("writeguard.lock.wait").tags("backend", "redis", "outcome", "timeout")
        .timer().count()).isEqualTo(1);
    assertThat(registry.get("writeguard.lock.wait").tags("outcome", "acquired").timer().count()).isEqualTo(1);
    assertThat(registry.get("writeguard.lock.held").timer().count()).isEqualTo(1);
    assertThat(registry.get("writeguard.lock.leases.lost").counter().count()).isEqualTo(1);
    assertThat(registry.get("writeguard.transaction.retries").tag("label", "TransientTransactionError")
        .counter().count()).isEqualTo(1);
  }

  @Test
  void aCustomPrefixRenamesEveryMeterAndABadOneIsRefused() {
    WriteGuardListener custom = WriteGuardMetrics.builder(registry).prefix("app.guard").build();
    custom.onAttempt(scope, "x", 1);
    assertThat(registry.get("app.guard.update.attempts").counter().count()).isEqualTo(1);
    assertThatThrownBy(() -> WriteGuardMetrics.builder(registry).prefix("bad prefix"))
        .hasMessageContaining("'bad prefix'");
  }

  /** Every event once, so every meter exists. */
  private static void everyEvent(WriteGuardListener l, OperationScope scope) {
    l.onAttempt(scope, "d", 1);
    l.onConflict(scope, "d", 1);
    l.onRetry(scope, "d", 1, Duration.ofMillis(1));
    l.onSuccess(scope, "d", 2, Duration.ofMillis(3));
    l.onExhausted(scope, "d", 5, Duration.ofSeconds(1));
    l.onFailure(scope, "d", new IllegalStateException("x"));
    l.onFencedRejection(scope, "d", 7);
    l.onLockWait("mongo", "k", Duration.ofMillis(2), true);
    l.onLockReleased("mongo", "k", 7, Duration.ofMillis(4));
    l.onLeaseLost("mongo", "k", 7);
    l.onTransactionRetry("TransientTransactionError", 1);
    l.onBatch(scope, "d", 3);
  }

  @Test
  void batchSizesBecomeADistributionSummaryWithAHelpText() {
    listener.onBatch(scope, "d", 1);
    listener.onBatch(scope, "d", 5);
    var summary = registry.get("writeguard.update.batch.size")
        .tags("collection", "docs", "strategy", "optimistic").summary();
    assertThat(summary.count()).isEqualTo(2);
    assertThat(summary.totalAmount()).isEqualTo(6);
    assertThat(summary.max()).isEqualTo(5);
    assertThat(summary.getId().getDescription()).contains("group commit");
  }

  @Test
  void everyMeterHasAHelpTextInPrometheus() {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    everyEvent(WriteGuardMetrics.builder(prometheus).conflictMonitor(monitor).build(), scope);
    String scrape = prometheus.scrape();
    long families = scrape.lines().filter(l -> l.startsWith("# TYPE writeguard_")).count();
    assertThat(families).as("meter families in:%n%s", scrape).isGreaterThanOrEqualTo(12);
    assertThat(scrape.lines().filter(l -> l.startsWith("# HELP writeguard_")))
        .hasSize((int) families)
        .allSatisfy(help -> assertThat(help.split(" ", 4)[3]).as(help).isNotBlank());
  }

  @Test
  void timersPublishPercentileHistogramsSoP99IsVisibleInPrometheus() {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    everyEvent(WriteGuardMetrics.builder(prometheus).build(), scope);
    String scrape = prometheus.scrape();
    for (String timer : new String[] {"update_latency", "lock_wait", "lock_held"}) {
      assertThat(scrape).as(timer).contains("writeguard_" + timer + "_seconds_bucket{");
    }
  }

  @Test
  void histogramsCanBeTurnedOffAndFixedBucketsAdded() {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    everyEvent(WriteGuardMetrics.builder(prometheus).percentileHistograms(false)
        .serviceLevelObjectives(Duration.ofMillis(50)).build(), scope);
    String scrape = prometheus.scrape();
    assertThat(scrape.lines().filter(l -> l.startsWith("writeguard_update_latency_seconds_bucket{")))
        .as("only the 50 ms objective and +Inf").hasSize(2)
        .anySatisfy(l -> assertThat(l).contains("le=\"0.05\""));
  }

  @Test
  void aBadServiceLevelObjectiveIsRefusedByName() {
    assertThatThrownBy(() -> WriteGuardMetrics.builder(registry)
        .serviceLevelObjectives(Duration.ofMillis(10), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slos[1]").hasMessageContaining("PT0S");
  }
}
