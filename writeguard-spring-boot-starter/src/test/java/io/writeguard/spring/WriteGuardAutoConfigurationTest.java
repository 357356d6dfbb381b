package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.micrometer.WriteGuardMetrics;
import io.writeguard.monitor.ConflictMonitor;
import io.writeguard.update.Mutation;
import io.writeguard.update.RetriesExhaustedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.data.annotation.Id;
import org.springframework.data.annotation.Version;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.mapping.Field;

/** Which beans the starter makes under which conditions, and how its properties are checked. */
class WriteGuardAutoConfigurationTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class,
          DataMongoAutoConfiguration.class, WriteGuardAutoConfiguration.class,
          WriteGuardRedisAutoConfiguration.class, WriteGuardMetricsAutoConfiguration.class,
          WriteGuardHealthAutoConfiguration.class))
      .withPropertyValues("spring.mongodb.uri=" + TestServers.mongoUri(),
          "spring.mongodb.database=" + TestServers.freshDatabase("autoconfig"));

  @Test
  void withMongoOnlyTheMongoPartsAreMade() {
    runner.run(context -> {
      assertThat(context).hasSingleBean(WriteGuardUpdaters.class)
          .hasSingleBean(MongoLeaseLockService.class).hasSingleBean(ConflictMonitor.class)
          .hasSingleBean(WriteGuardExceptionTranslator.class)
          .hasSingleBean(WriteGuardHealthIndicator.class)
          .doesNotHaveBean(LazyLockService.class).doesNotHaveBean(WriteGuardMetrics.class);
      assertThat(context.getBean(WriteGuardHealthIndicator.class).health().getDetails())
          .containsOnlyKeys("mongo");
    });
  }

  @Test
  void theApplicationsOwnBeansWinAndDisabledPartsAreLeftOut() {
    runner.withUserConfiguration(OwnBeans.class)
        .withPropertyValues("writeguard.mongo-lock.enabled=false")
        .run(context -> {
          assertThat(context.getBean(ConflictMonitor.class)).isSameAs(OwnBeans.MONITOR);
          assertThat(context).doesNotHaveBean(MongoLeaseLockService.class)
              .doesNotHaveBean(WriteGuardHealthIndicator.class)
              .hasSingleBean(WriteGuardMetrics.class);
        });
  }

  @Test
  void theMetricsHearTheUpdatersMadeByTheFactory() {
    runner.withUserConfiguration(OwnBeans.class).run(context -> {
      MongoTemplate template = context.getBean(MongoTemplate.class);
      template.getCollection("plain").insertOne(new Document("_id", 1).append("version", 0L));
      context.getBean(WriteGuardUpdaters.class).documents("plain")
          .update(1, current -> Mutation.update(Updates.set("seen", true)));
      MeterRegistry meters = context.getBean(MeterRegistry.class);
      assertThat(meters.get("writeguard.update.attempts").counter().count()).isEqualTo(1.0);
      assertThat(OwnBeans.MONITOR.scopes()).isNotEmpty(); // the user's monitor heard it too
    });
  }

  @Test
  void withALettuceFactoryTheRedisLockIsMadeUnlessDisabled() {
    ApplicationContextRunner redis = runner
        .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.url=" + TestServers.redisUri());
    redis.run(context -> {
      assertThat(context).hasSingleBean(LazyLockService.class);
      assertThat(context.getBean(WriteGuardHealthIndicator.class).health().getDetails())
          .containsOnlyKeys("mongo", "redis");
    });
    redis.withPropertyValues("writeguard.redis-lock.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(LazyLockService.class));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "writeguard.mongo-lock.lease=-1s          | writeguard.mongo-lock.lease          | PT-1S",
      "writeguard.updater.max-attempts=0        | writeguard.updater.max-attempts      | was 0",
      "writeguard.monitor.threshold=1.5         | writeguard.monitor.threshold         | 1.5",
      "writeguard.mongo-lock.collection=        | writeguard.mongo-lock.collection     | ''",
      "writeguard.redis-lock.renew-interval=40s | writeguard.redis-lock.renew-interval | PT40S",
      "writeguard.updater.max-backoff=1ms       | writeguard.updater.max-backoff       | PT0.001S"})
  void aBadValueStopsStartupNamingThePropertyAndTheValue(String setting, String property,
      String value) {
    runner.withPropertyValues(setting).run(context -> {
      assertThat(context).hasFailed();
      String messages = messages(context.getStartupFailure());
      assertThat(messages).contains(property).contains(value);
    });
  }

  @Test
  void theVersionFieldIsTheMappedFieldOfTheVersionProperty() {
    runner.run(context -> {
      WriteGuardUpdaters updaters = context.getBean(WriteGuardUpdaters.class);
      assertThat(updaters.versionPolicy(Renamed.class).field()).isEqualTo("rev");
      assertThat(updaters.versionPolicy(Unversioned.class).field()).isEqualTo("version");
      assertThatThrownBy(() -> updaters.versionPolicy(IntVersioned.class))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(IntVersioned.class.getName()).hasMessageContaining("'version'")
          .hasMessageContaining("java.lang.Integer");

      MongoTemplate template = context.getBean(MongoTemplate.class);
      Renamed saved = template.insert(new Renamed("r1", 1));
      Renamed updated = updaters.entities(Renamed.class).update("r1", r -> {
        r.amount += 1;
        return r;
      });
      assertThat(updated.revision).isEqualTo(saved.revision + 1);
      Document stored = template.getCollection("renamed").find(Filters.eq("_id", "r1")).first();
      assertThat(stored.get("rev")).isEqualTo(saved.revision + 1);
      assertThat(stored).doesNotContainKey("version");
    });
  }

  @Test
  void retriesExhaustedByACompetingWriteInsideTheMutatorAreAnOptimisticLockingFailure() {
    // With contention pacing (the default) a round lost to another writer's write is bounded
    // by the deadline, not counted against max-attempts: a short deadline ends this call.
    runner.withPropertyValues("writeguard.updater.max-attempts=3",
        "writeguard.updater.deadline=300ms").run(context -> {
      MongoCollection<Document> docs = context.getBean(MongoTemplate.class).getCollection("hot");
      docs.insertOne(new Document("_id", "k").append("version", 0L).append("n", 0));
      AtomicInteger attempts = new AtomicInteger();
      DocumentUpdater updater = context.getBean(WriteGuardUpdaters.class).documents("hot");

      assertThatThrownBy(() -> updater.update("k", current -> {
        attempts.incrementAndGet();
        // another writer moves the version between this attempt's read and its write
        docs.updateOne(Filters.eq("_id", "k"), Updates.inc("version", 1L));
        return Mutation.update(Updates.inc("n", 1));
      })).isInstanceOf(OptimisticLockingFailureException.class)
          .hasCauseInstanceOf(RetriesExhaustedException.class)
          .hasMessageContaining("_id=k").hasMessageContaining("deadline reached");

      assertThat(attempts.get()).isGreaterThanOrEqualTo(3);
      Document stored = docs.find(Filters.eq("_id", "k")).first();
      assertThat(stored.get("n")).isEqualTo(0); // nothing of the failed update was written
      assertThat(stored.get("version")).isEqualTo((long) attempts.get());

      assertThatThrownBy(() -> updater.update("missing", current -> Mutation.none()))
          .isInstanceOf(EmptyResultDataAccessException.class);
    });
  }

  private static String messages(Throwable failure) {
    List<String> messages = new ArrayList<>();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.add(String.valueOf(t.getMessage()));
    }
    return String.join(" / ", messages);
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnBeans {
    static final ConflictMonitor MONITOR = ConflictMonitor.builder().build();

    @Bean
    ConflictMonitor myMonitor() {
      return MONITOR;
    }

    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  @org.springframework.data.mongodb.core.mapping.Document("renamed")
  static class Renamed {
    @Id String id;
    @Version @Field("rev") Long revision;
    long amount;

    Renamed() {}

    Renamed(String id, long amount) {
      this.id = id;
      this.amount = amount;
    }
  }

  @org.springframework.data.mongodb.core.mapping.Document("intversioned")
  static class IntVersioned {
    @Id String id;
    @Version Integer version;
  }

  @org.springframework.data.mongodb.core.mapping.Document("unversioned")
  static class Unversioned {
    @Id String id;
  }
}
