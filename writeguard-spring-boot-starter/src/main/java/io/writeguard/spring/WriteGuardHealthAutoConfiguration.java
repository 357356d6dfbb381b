package io.writeguard.spring;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code writeGuard} health contributor (Actuator's {@code /actuator/health}): are the lock
 * stores reachable, answered within {@code writeguard.health.timeout}. Switched off with {@code management.health.writeguard.enabled=false}.
 */
@AutoConfiguration(after = {WriteGuardAutoConfiguration.class,
    WriteGuardRedisAutoConfiguration.class})
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(LockStoreProbe.class)
@ConditionalOnProperty(prefix = "management.health.writeguard", name = "enabled",
    matchIfMissing = true)
public class WriteGuardHealthAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "writeGuardHealthIndicator")
  public WriteGuardHealthIndicator writeGuardHealthIndicator(ObjectProvider<LockStoreProbe> probes,
      WriteGuardProperties properties) {
    return new WriteGuardHealthIndicator(probes.orderedStream().toList(),
        properties.getHealth().getTimeout());
  }
}
