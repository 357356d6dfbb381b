package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.model.Filters;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.Version;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.mapping.Field;

/**
 * {@link WriteGuardUpdaters#lockedEntities}: entity updates under the starter's lock service,
 * with the updater properties, the listener beans and Spring exceptions (embedded MongoDB).
 */
class LockedEntityUpdaterTest {
  /** Hears the strategies of the updates it is told about. */
  static final Set<String> STRATEGIES = ConcurrentHashMap.newKeySet();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class,
          DataMongoAutoConfiguration.class, WriteGuardAutoConfiguration.class))
      .withPropertyValues("spring.mongodb.uri=" + TestServers.mongoUri(),
          "spring.mongodb.database=" + TestServers.freshDatabase("locked"))
      .withBean("strategyListener", WriteGuardListener.class, () -> new WriteGuardListener() {
        @Override
        public void onSuccess(OperationScope scope, Object key, int attempts, Duration elapsed) {
          STRATEGIES.add(scope.collection() + "/" + scope.strategy());
        }
      });

  @Test
  void lockedAndOptimisticUpdatesOfOneEntityLoseNothing() {
    runner.run(context -> {
      MongoTemplate template = context.getBean(MongoTemplate.class);
      WriteGuardUpdaters updaters = context.getBean(WriteGuardUpdaters.class);
      template.insert(new Counter("c1"));
      LockedEntityUpdater<Counter> locked = updaters.lockedEntities(Counter.class);
      assertThat(updaters.lockedEntities(Counter.class)).isSameAs(locked);
      assertThat(locked.documents().unwrap().scope())
          .isEqualTo(new OperationScope("counters", WriteGuardUpdaters.LOCKED_STRATEGY));

      ExecutorService pool = Executors.newFixedThreadPool(8);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          boolean underLock = t % 2 == 0; // half locked, half optimistic, same documents
          done.add(pool.submit(() -> {
            for (int i = 0; i < 15; i++) {
              if (underLock) {
                locked.update("c1", c -> c.withTicks(c.ticks + 1, "L"));
              } else {
                updaters.entities(Counter.class).update("c1", c -> c.withTicks(c.ticks + 1, "O"));
              }
            }
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }

      Counter stored = template.findById("c1", Counter.class);
      assertThat(stored.ticks).isEqualTo(8 * 15);
      assertThat(stored.byLock + stored.byOptimistic).isEqualTo(8 * 15);
      assertThat(stored.byLock).isEqualTo(4 * 15);
      Document raw = template.getCollection("counters").find(Filters.eq("_id", "c1")).first();
      assertThat(raw.getLong("_fence")).isPositive(); // the locked writes raised the fence
      assertThat(STRATEGIES).contains("counters/locked", "counters/optimistic");
    });
  }

  @Test
  void aLockHeldElsewhereIsACannotAcquireLockExceptionAfterTheDefaultWait() {
    runner.withPropertyValues("writeguard.lock.default-wait=100ms").run(context -> {
      context.getBean(MongoTemplate.class).insert(new Counter("c2"));
      MongoLeaseLockService locks = context.getBean(MongoLeaseLockService.class);
      LockedEntityUpdater<Counter> locked =
          context.getBean(WriteGuardUpdaters.class).lockedEntities(Counter.class, "mongo");
      try (LockHandle held = locks.acquire("counters:c2", Duration.ofSeconds(5))) {
        assertThatThrownBy(() -> locked.update("c2", c -> c.withTicks(99, "L")))
            .isInstanceOf(CannotAcquireLockException.class)
            .hasCauseInstanceOf(LockTimeoutException.class);
      }
      assertThat(context.getBean(MongoTemplate.class).findById("c2", Counter.class).ticks)
          .isZero(); // nothing written
      assertThat(locked.update("c2", c -> c.withTicks(1, "L")).ticks).isEqualTo(1);
    });
  }

  @Test
  void anUnknownLockServiceIsRefusedNamingTheServices() {
    runner.run(context -> assertThatThrownBy(() -> context.getBean(WriteGuardUpdaters.class)
        .lockedEntities(Counter.class, "zookeeper"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'zookeeper'")
        .hasMessageContaining("writeGuardMongoLockService (mongo)"));
  }

  @org.springframework.data.mongodb.core.mapping.Document("counters")
  static class Counter {
    @Id String id;
    @Version @Field("v") Long version;
    long ticks;
    long byLock;
    long byOptimistic;

    Counter() {}

    Counter(String id) {
      this.id = id;
    }

    Counter withTicks(long ticks, String by) {
      this.ticks = ticks;
      if (by.equals("L")) {
        byLock++;
      } else {
        byOptimistic++;
      }
      return this;
    }
  }
}
