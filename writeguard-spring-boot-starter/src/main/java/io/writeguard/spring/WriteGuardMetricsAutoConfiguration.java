package io.writeguard.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.writeguard.micrometer.WriteGuardMetrics;
import io.writeguard.monitor.ConflictMonitor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Publishes WriteGuard's events as Micrometer meters ({@link WriteGuardMetrics}, with the
 * conflict monitor's sliding-window ratio as a gauge) when the application has a
 * {@link MeterRegistry} and writeguard-micrometer. The binding is a listener bean, so every
 * updater and lock service the starter makes reports to it.
 */
@AutoConfiguration(after = WriteGuardAutoConfiguration.class, afterName = {
    "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration"})
@ConditionalOnClass({WriteGuardMetrics.class, MeterRegistry.class})
@ConditionalOnBean({MeterRegistry.class, WriteGuardProperties.class})
@ConditionalOnProperty(prefix = "writeguard.metrics", name = "enabled", matchIfMissing = true)
public class WriteGuardMetricsAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  public WriteGuardMetrics writeGuardMetrics(MeterRegistry registry,
      WriteGuardProperties properties, ObjectProvider<ConflictMonitor> monitor) {
    WriteGuardProperties.Metrics metrics = properties.getMetrics();
    WriteGuardMetrics.Builder builder = WriteGuardMetrics.builder(registry)
        .prefix(metrics.getPrefix())
        .percentileHistograms(metrics.isPercentileHistograms());
    monitor.ifUnique(builder::conflictMonitor);
    return builder.build();
  }
}
