package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.model.Updates;
import io.writeguard.adaptive.AdaptiveUpdater;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.reactor.ReactiveQueueFullException;
import io.writeguard.reactor.ReactiveWriteGuard;
import io.writeguard.update.LockedUpdater;
import io.writeguard.update.Mutation;
import io.writeguard.update.Mutator;
import io.writeguard.update.Updater;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.Version;
import org.springframework.data.mongodb.core.MongoTemplate;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * The starter's reactive beans: made from the same properties, listener beans and lock
 * services as the blocking updaters, errors as {@code Mono.error} of Spring's exceptions
 * (embedded MongoDB).
 */
class ReactiveUpdatersTest {
  static final List<String> EVENTS = new CopyOnWriteArrayList<>();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class,
          DataMongoAutoConfiguration.class, WriteGuardAutoConfiguration.class,
          WriteGuardReactiveAutoConfiguration.class))
      .withPropertyValues("spring.mongodb.uri=" + TestServers.mongoUri(),
          "spring.mongodb.database=" + TestServers.freshDatabase("reactive"))
      .withBean("eventListener", WriteGuardListener.class, () -> new WriteGuardListener() {
        @Override
        public void onSuccess(OperationScope scope, Object key, int attempts, Duration elapsed) {
          EVENTS.add(scope.collection() + "/" + scope.strategy() + "/" + key);
        }
      });

  @org.springframework.data.mongodb.core.mapping.Document("purses")
  static class Purse {
    @Id String id;
    @Version Long version;
    long balance;

    Purse() {}

    Purse(String id) {
      this.id = id;
    }
  }

  @Test
  void concurrentReactiveUpdatesFromParallelThreadsOptimisticAndLockedLoseNothing() {
    runner.withPropertyValues("writeguard.reactive.threads=6",
        "writeguard.reactive.lock-waiters=3",
        "writeguard.reactive.thread-name-prefix=wg-rx").run(context -> {
          MongoTemplate template = context.getBean(MongoTemplate.class);
          template.insert(new Purse("p1"));
          ReactiveWriteGuardUpdaters reactive = context.getBean(ReactiveWriteGuardUpdaters.class);
          assertThat(reactive.blocking()).isSameAs(context.getBean(WriteGuardUpdaters.class));
          assertThat(reactive.guard().executor().threads()).isEqualTo(6);
          assertThat(reactive.guard().executor().name()).isEqualTo("wg-rx");
          assertThat(reactive.guard().lockWaitExecutor().threads()).isEqualTo(3);

          Long done = Flux.range(0, 120).parallel(4).runOn(Schedulers.parallel())
              .flatMap(i -> (i % 3 == 0 ? reactive.lockedEntities(Purse.class)
                  : reactive.entities(Purse.class)).update("p1", p -> {
                    p.balance++;
                    return p;
                  }))
              .sequential().count().block(Duration.ofSeconds(120));

          assertThat(done).isEqualTo(120);
          assertThat(template.findById("p1", Purse.class).balance).isEqualTo(120);
          assertThat(EVENTS.stream().filter(e -> e.endsWith("/p1")).count()).isEqualTo(120);
          assertThat(EVENTS).contains("purses/locked/p1", "purses/optimistic/p1");
        });
  }

  @Test
  void errorsAreTranslatedSpringExceptions() {
    runner.withPropertyValues("writeguard.lock.default-wait=100ms").run(context -> {
      ReactiveWriteGuardUpdaters reactive = context.getBean(ReactiveWriteGuardUpdaters.class);
      assertThatThrownBy(() -> reactive.entities(Purse.class).update("missing", p -> p)
          .block(Duration.ofSeconds(30)))
          .isInstanceOf(EmptyResultDataAccessException.class);

      context.getBean(MongoTemplate.class).insert(new Purse("p2"));
      MongoLeaseLockService locks = context.getBean(MongoLeaseLockService.class);
      try (LockHandle held = locks.acquire("purses:p2", Duration.ofSeconds(5))) {
        assertThatThrownBy(() -> reactive.lockedEntities(Purse.class).update("p2", p -> p)
            .block(Duration.ofSeconds(30)))
            .isInstanceOf(CannotAcquireLockException.class)
            .hasCauseInstanceOf(LockTimeoutException.class);
      }
    });
  }

  /** Any strategy behind core's Updater goes through the starter's one translating wrapper. */
  @Test
  void anyStrategyIsTranslatedBlockingAndReactive() {
    runner.run(context -> {
      MongoTemplate template = context.getBean(MongoTemplate.class);
      template.insert(new Purse("p3"));
      WriteGuardUpdaters updaters = context.getBean(WriteGuardUpdaters.class);
      ReactiveWriteGuardUpdaters reactive = context.getBean(ReactiveWriteGuardUpdaters.class);
      MongoLeaseLockService locks = context.getBean(MongoLeaseLockService.class);
      Updater adaptive = updaters.translating(AdaptiveUpdater.builder(
          updaters.documents(Purse.class).unwrap(), locks).build());
      Mutator deposit = current -> Mutation.update(Updates.inc("balance", 1L));

      assertThat(adaptive.update("p3", deposit).written()).isTrue();
      assertThat(reactive.updater(adaptive).updateOne("p3", deposit)
          .block(Duration.ofSeconds(30)).written()).isTrue();
      assertThat(template.findById("p3", Purse.class).balance).isEqualTo(2);
      assertThatThrownBy(() -> adaptive.update("missing", deposit))
          .isInstanceOf(EmptyResultDataAccessException.class);
      assertThatThrownBy(() -> reactive.updater(adaptive).update("missing", deposit)
          .block(Duration.ofSeconds(30)))
          .isInstanceOf(EmptyResultDataAccessException.class);
      // The locked strategy's own failure, translated: a lock not had in time.
      Updater locked = updaters.translating(LockedUpdater.builder(
          updaters.documents(Purse.class).unwrap(), locks).lockWait(Duration.ofMillis(100))
          .build());
      try (LockHandle held = locks.acquire("purses:p3", Duration.ofSeconds(5))) {
        assertThatThrownBy(() -> locked.update("p3", deposit))
            .isInstanceOf(CannotAcquireLockException.class)
            .hasCauseInstanceOf(LockTimeoutException.class);
      }
    });
  }

  @Test
  void aFullExecutorIsATransientDataAccessResourceExceptionAtOnce() {
    runner.withPropertyValues("writeguard.reactive.threads=1",
        "writeguard.reactive.queue-capacity=0").run(context -> {
          context.getBean(MongoTemplate.class).insert(new Purse("p3"));
          ReactiveWriteGuardUpdaters reactive = context.getBean(ReactiveWriteGuardUpdaters.class);
          CountDownLatch busy = new CountDownLatch(1);
          CountDownLatch free = new CountDownLatch(1);
          var first = reactive.entities(Purse.class).update("p3", p -> {
            busy.countDown();
            try {
              free.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            p.balance = 7;
            return p;
          }).toFuture();
          assertThat(busy.await(30, TimeUnit.SECONDS)).isTrue();
          assertThatThrownBy(() -> reactive.entities(Purse.class).update("p3", p -> p)
              .block(Duration.ofSeconds(10)))
              .isInstanceOf(TransientDataAccessResourceException.class)
              .hasCauseInstanceOf(ReactiveQueueFullException.class);
          free.countDown();
          assertThat(first.get(30, TimeUnit.SECONDS).balance).isEqualTo(7);
        });
  }

  @Test
  void badExecutorSettingsAreBindingFailuresNamingTheProperty() {
    runner.withPropertyValues("writeguard.reactive.threads=0").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .hasMessageContaining("writeguard.reactive.threads");
    });
  }

  @Test
  void zeroLockWaitersIsABindingFailureNamingTheProperty() {
    runner.withPropertyValues("writeguard.reactive.lock-waiters=0").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .hasMessageContaining("writeguard.reactive.lock-waiters");
    });
  }

  @Test
  void anApplicationsOwnFacadeWins() {
    runner.withBean(ReactiveWriteGuard.class, () -> ReactiveWriteGuard.builder().threads(3)
        .name("own").build()).run(context -> assertThat(context
            .getBean(ReactiveWriteGuardUpdaters.class).guard().executor().name())
            .isEqualTo("own"));
  }
}
