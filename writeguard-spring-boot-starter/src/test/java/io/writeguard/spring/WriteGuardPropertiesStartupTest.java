package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockService;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * Bad settings stop startup with Boot's own binding report, as Boot's failure analyzers print
 * it, not a bean creation stack; an unknown default lock service is refused naming the value and
 * the allowed ones.
 */
class WriteGuardPropertiesStartupTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class,
          DataMongoAutoConfiguration.class, WriteGuardAutoConfiguration.class))
      .withPropertyValues("spring.mongodb.uri=" + TestServers.mongoUri(),
          "spring.mongodb.database=" + TestServers.freshDatabase("props"));

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      // not below the lease: the cross check, a validation failure of the binding
      "writeguard.redis-lock.renew-interval=40s | Binding to target | writeguard.redis-lock.renew-interval must be shorter than writeguard.redis-lock.lease (PT30S), was PT40S",
      "writeguard.mongo-lock.renew-interval=30s | Binding to target | writeguard.mongo-lock.renew-interval must be shorter than writeguard.mongo-lock.lease (PT30S), was PT30S",
      "writeguard.updater.base-backoff=1s       | Binding to target | writeguard.updater.max-backoff must be >= writeguard.updater.base-backoff (PT1S), was PT0.5S",
      "writeguard.updater.max-backoff=1ms       | Binding to target | writeguard.updater.max-backoff must be >= writeguard.updater.base-backoff (PT0.005S), was PT0.001S",
      // negative: refused by the setter while binding
      "writeguard.mongo-lock.renew-interval=-1s | Failed to bind properties under 'writeguard.mongo-lock' | writeguard.mongo-lock.renew-interval must be positive"})
  void aBadRenewIntervalIsReportedByBootsBindingAnalysis(String setting, String report,
      String reason) {
    runner.withPropertyValues(setting).run(context -> {
      assertThat(context).hasFailed();
      Throwable failure = context.getStartupFailure();
      assertThat(causes(failure)).anyMatch(BindException.class::isInstance);
      FailureAnalysis analysis = analyze(failure);
      assertThat(analysis).as("a Boot failure analyzer reports it").isNotNull();
      assertThat(analysis.getDescription()).contains(report).contains(reason);
    });
  }

  @Test
  void aRenewIntervalBelowALongerLeaseIsAccepted() {
    runner.withPropertyValues("writeguard.redis-lock.lease=60s",
        "writeguard.redis-lock.renew-interval=40s")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void anUnknownDefaultServiceIsRefusedAtStartupNamingTheValueAndTheAllowedOnes() {
    runner.withPropertyValues("writeguard.lock.default-service=zookeeper")
        .withBean("myLocks", LockService.class, () -> LocalLockService.create())
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(context.getStartupFailure()).isInstanceOf(IllegalStateException.class)
              .hasMessageStartingWith("writeguard.lock.default-service=zookeeper names no lock"
                  + " service; allowed: local, mongo, myLocks, writeGuardMongoLockService");
        });
  }

  @Test
  void aKnownDefaultServiceByBackendOrBeanNameStarts() {
    runner.withPropertyValues("writeguard.lock.default-service=mongo")
        .run(context -> assertThat(context).hasNotFailed());
    runner.withPropertyValues("writeguard.lock.default-service=writeGuardMongoLockService")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void theDefaultLeftUnsetIsNotCheckedAtStartup() {
    // no lock service at all: an application that never locks still starts
    runner.withPropertyValues("writeguard.mongo-lock.enabled=false")
        .run(context -> assertThat(context).hasNotFailed());
  }

  private static List<Throwable> causes(Throwable failure) {
    List<Throwable> all = new java.util.ArrayList<>();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      all.add(t);
    }
    return all;
  }

  /** What Boot prints for {@code failure}: the first analysis of its failure analyzers. */
  private static FailureAnalysis analyze(Throwable failure) {
    List<FailureAnalyzer> analyzers = SpringFactoriesLoader
        .forDefaultResourceLocation(WriteGuardPropertiesStartupTest.class.getClassLoader())
        .load(FailureAnalyzer.class, SpringFactoriesLoader.ArgumentResolver.none(),
            SpringFactoriesLoader.FailureHandler.handleMessage((message, e) -> { }));
    AnnotationAwareOrderComparator.sort(analyzers);
    return analyzers.stream().map(a -> a.analyze(failure)).filter(Objects::nonNull)
        .findFirst().orElse(null);
  }
}
