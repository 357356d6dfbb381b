package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.SimpleTransactionStatus;
import reactor.core.publisher.Mono;

/**
 * Regression (issue 17): {@code @LeaseLocked} and {@code @Transactional} on one method. The lock
 * advisor had no order and tied with the transaction advisor, so with the application's own
 * {@code @EnableTransactionManagement} the lock was released before the commit. And a locked
 * method returning a future released its lock as soon as it returned.
 */
class LeaseLockedAdvisorOrderTest {
  private static final List<String> STEPS = new CopyOnWriteArrayList<>();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withPropertyValues("writeguard.lock.default-service=recording");

  /** A transaction manager that only records what it was asked. */
  static final class RecordingTransactions implements PlatformTransactionManager {
    @Override
    public TransactionStatus getTransaction(TransactionDefinition definition) {
      STEPS.add("begin");
      return new SimpleTransactionStatus(true);
    }

    @Override
    public void commit(TransactionStatus status) {
      STEPS.add("commit");
    }

    @Override
    public void rollback(TransactionStatus status) {
      STEPS.add("rollback");
    }
  }

  /** A lock service that grants every lock and records takes and releases. */
  static final class RecordingLocks implements LockService {
    @Override
    public LockHandle acquire(String key, Duration waitTimeout) {
      STEPS.add("acquire");
      AtomicBoolean released = new AtomicBoolean();
      return new LockHandle() {
        @Override
        public String key() {
          return key;
        }

        @Override
        public long token() {
          return 1;
        }

        @Override
        public boolean isLost() {
          return false;
        }

        @Override
        public boolean isReleased() {
          return released.get();
        }

        @Override
        public void close() {
          if (released.compareAndSet(false, true)) {
            STEPS.add("release");
          }
        }
      };
    }

    @Override
    public Optional<LockHandle> tryAcquire(String key) {
      return Optional.of(acquire(key, Duration.ZERO));
    }

    @Override
    public String backend() {
      return "recording";
    }
  }

  public static class Settlement {
    @LeaseLocked(key = "'invoice:7'")
    @Transactional
    public void settle() {
      STEPS.add("body");
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Beans {
    @Bean
    PlatformTransactionManager transactionManager() {
      return new RecordingTransactions();
    }

    @Bean
    LockService recording() {
      return new RecordingLocks();
    }

    @Bean
    Settlement settlement() {
      return new Settlement();
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableTransactionManagement
  static class OwnTransactionManagement {}

  private void settlesInsideTheLock(ApplicationContextRunner configured) {
    configured.run(context -> {
      assertThat(context).hasNotFailed();
      STEPS.clear();
      context.getBean(Settlement.class).settle();
      assertThat(STEPS).containsExactly("acquire", "begin", "body", "commit", "release");
    });
  }

  @Test
  void theLockIsHeldAroundTheTransactionWithBootsTransactionManagement() {
    settlesInsideTheLock(runner.withConfiguration(AutoConfigurations.of(
            TransactionAutoConfiguration.class, WriteGuardAutoConfiguration.class))
        .withUserConfiguration(Beans.class));
  }

  @Test
  void theLockIsHeldAroundTheTransactionWithTheApplicationsOwnTransactionManagement() {
    settlesInsideTheLock(runner.withConfiguration(AutoConfigurations.of(
            WriteGuardAutoConfiguration.class))
        .withUserConfiguration(OwnTransactionManagement.class, Beans.class));
  }

  @Test
  void theAdvisorOrderIsConfigurable() {
    runner.withConfiguration(AutoConfigurations.of(WriteGuardAutoConfiguration.class))
        .withBean(LockService.class, RecordingLocks::new) // the default service it names
        .withPropertyValues("writeguard.lock.advisor-order=42")
        .run(context -> assertThat(context.getBean(LeaseLockedAdvisor.class).getOrder())
            .isEqualTo(42));
  }

  public static class Later {
    @LeaseLocked(key = "'later'")
    public CompletableFuture<String> later() {
      return CompletableFuture.completedFuture("done");
    }
  }

  public static class Streaming {
    @LeaseLocked(key = "'flux'")
    public reactor.core.publisher.Flux<String> flux() {
      return reactor.core.publisher.Flux.just("done");
    }
  }

  public static class Reactive {
    @LeaseLocked(key = "'reactive'")
    public Mono<String> reactive() {
      return Mono.just("done");
    }
  }

  @Test
  void aLockedMethodReturningAFutureOrAMonoIsAcceptedWithWriteGuardReactor() {
    // writeguard-reactor is on this module's test classpath: the lock is held to the work's end
    for (Class<?> bean : List.of(Later.class, Reactive.class)) {
      runner.withConfiguration(AutoConfigurations.of(WriteGuardAutoConfiguration.class,
              WriteGuardReactiveAutoConfiguration.class))
          .withBean(LockService.class, RecordingLocks::new)
          .withBean(bean)
          .run(context -> {
            assertThat(context).hasNotFailed();
            STEPS.clear();
            Object result = bean == Later.class
                ? context.getBean(Later.class).later().get(30, java.util.concurrent.TimeUnit.SECONDS)
                : context.getBean(Reactive.class).reactive().block(Duration.ofSeconds(30));
            assertThat(result).isEqualTo("done");
            assertThat(STEPS).containsExactly("acquire", "release");
          });
    }
  }

  @Test
  void aLockedMethodReturningAFluxIsRefusedAtStartNamingIt() {
    for (Class<?> bean : List.of(Streaming.class)) {
      runner.withConfiguration(AutoConfigurations.of(WriteGuardAutoConfiguration.class))
          .withBean(LockService.class, RecordingLocks::new)
          .withBean(bean)
          .run(context -> {
            assertThat(context).hasFailed();
            Throwable root = context.getStartupFailure();
            while (root.getCause() != null) {
              root = root.getCause();
            }
            assertThat(root).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(bean.getName() + ".flux()")
                .hasMessageContaining("released while the work still runs");
          });
    }
  }
}
