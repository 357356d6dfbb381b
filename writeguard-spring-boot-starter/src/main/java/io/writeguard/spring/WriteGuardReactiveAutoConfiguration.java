package io.writeguard.spring;

import io.writeguard.reactor.ReactiveWriteGuard;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/**
 * WriteGuard for Reactor, when the application has writeguard-reactor and Reactor: the
 * {@link ReactiveWriteGuard} (its bounded executor, {@code writeguard.reactive.*}, errors as
 * Spring's exceptions) and {@link ReactiveWriteGuardUpdaters}, which run the blocking
 * {@link WriteGuardUpdaters}' updaters on it: the same properties, listener beans, lock
 * services and translation. The same executor acquires and releases the locks of
 * {@link LeaseLocked} methods that return a {@code Mono} or a {@code CompletionStage}.
 */
@AutoConfiguration(after = WriteGuardAutoConfiguration.class)
@ConditionalOnClass({Mono.class, ReactiveWriteGuard.class})
@EnableConfigurationProperties(WriteGuardProperties.class)
public class WriteGuardReactiveAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public ReactiveWriteGuard writeGuardReactive(WriteGuardProperties properties,
      ObjectProvider<WriteGuardExceptionTranslator> translator) {
    WriteGuardProperties.Reactive reactive = properties.getReactive();
    return ReactiveWriteGuard.builder()
        .threads(reactive.getThreads())
        .queueCapacity(reactive.getQueueCapacity())
        .lockWaiters(reactive.getLockWaiters())
        .name(reactive.getThreadNamePrefix())
        .errors(ReactiveErrors.translating(
            translator.getIfAvailable(WriteGuardExceptionTranslator::new)))
        .build();
  }

  @Bean
  @ConditionalOnBean(WriteGuardUpdaters.class)
  @ConditionalOnMissingBean
  public ReactiveWriteGuardUpdaters writeGuardReactiveUpdaters(WriteGuardUpdaters updaters,
      ReactiveWriteGuard guard) {
    return new ReactiveWriteGuardUpdaters(updaters, guard);
  }
}
