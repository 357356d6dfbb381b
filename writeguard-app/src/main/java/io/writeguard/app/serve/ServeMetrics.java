package io.writeguard.app.serve;

import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.writeguard.micrometer.WriteGuardMetrics;
import io.writeguard.monitor.ConflictMonitor;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;

/**
 * The service's meters, scraped at {@code GET /metrics} in the Prometheus text format.
 *
 * <p>Two sources: the strategies' {@link WriteGuardListener} events become
 * {@code writeguard_update_*}, {@code writeguard_lock_*} and {@code writeguard_conflict_ratio}
 * through {@link WriteGuardMetrics} (fed by a {@link ConflictMonitor}, which also logs a retry
 * storm), and every HTTP answer is timed as {@code writeguard_http_requests_seconds} tagged
 * with method, route template (never the raw path, whose ids would explode the label set) and
 * status. Thread-safe.
 */
public final class ServeMetrics {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final ConflictMonitor monitor;
  private final WriteGuardListener listener;

  public ServeMetrics() {
    this.monitor = ConflictMonitor.builder().build();
    this.listener = WriteGuardListener.composite(monitor,
        WriteGuardMetrics.builder(registry).conflictMonitor(monitor).build());
  }

  /** The listener to give every strategy, lock service and updater. */
  public WriteGuardListener listener() {
    return listener;
  }

  public ConflictMonitor monitor() {
    return monitor;
  }

  /** Records one answered request. */
  void recordRequest(String method, String route, int status, Duration elapsed) {
    Timer.builder("writeguard.http.requests")
        .description("HTTP requests answered, by route template and status")
        .tags("method", method, "route", route, "status", Integer.toString(status))
        .register(registry)
        .record(elapsed);
  }

  /** The Prometheus text exposition (format 0.0.4). */
  public String scrape() {
    return registry.scrape();
  }

  /** The content type of {@link #scrape()}. */
  public static String contentType() {
    return "text/plain; version=0.0.4; charset=utf-8";
  }
}
