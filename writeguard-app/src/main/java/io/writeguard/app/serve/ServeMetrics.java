package io.writeguard.app.serve;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
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
 * status, with a percentile histogram ({@code _bucket} series) so a p99 can be computed with
 * {@code histogram_quantile} across instances. The JVM and the process are described by
 * Micrometer's standard binders ({@code jvm_memory_*}, {@code jvm_gc_*}, {@code jvm_threads_*},
 * {@code jvm_classes_*}, {@code system_cpu_*}/{@code process_cpu_*}, {@code process_uptime_*},
 * {@code process_files_*}). Every meter carries a description, published as its {@code # HELP}.
 *
 * <p>Thread-safe. {@link #close()} stops the GC listener (the one binder that holds a
 * resource) and closes the registry; the service calls it after the last request.
 */
public final class ServeMetrics implements AutoCloseable {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final ConflictMonitor monitor;
  private final WriteGuardListener listener;
  private final JvmGcMetrics gcMetrics = new JvmGcMetrics();

  public ServeMetrics() {
    this.monitor = ConflictMonitor.builder().build();
    this.listener = WriteGuardListener.composite(monitor,
        WriteGuardMetrics.builder(registry).conflictMonitor(monitor).build());
    for (MeterBinder binder : new MeterBinder[] {new JvmMemoryMetrics(), gcMetrics,
        new JvmThreadMetrics(), new ClassLoaderMetrics(), new ProcessorMetrics(),
        new UptimeMetrics(), new FileDescriptorMetrics()}) {
      binder.bindTo(registry);
    }
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
        .publishPercentileHistogram()
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

  /** Whether {@link #close()} ran (for tests). */
  boolean isClosed() {
    return registry.isClosed();
  }

  /** Unregisters the GC notification listener and closes the registry. Idempotent. */
  @Override
  public void close() {
    gcMetrics.close();
    registry.close();
  }
}
