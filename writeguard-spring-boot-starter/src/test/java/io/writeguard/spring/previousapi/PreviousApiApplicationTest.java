package io.writeguard.spring.previousapi;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.redis.RedisLockService;
import io.writeguard.spring.LazyLockService;
import io.writeguard.spring.WriteGuardAutoConfiguration;
import io.writeguard.spring.WriteGuardRedisAutoConfiguration;
import io.writeguard.spring.TestServers;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.mongodb.core.MongoTemplate;

/**
 * Upgrades keep working: an application written against the starter's earlier documentation
 * (it injects {@code RedisLockService} by type) starts and serves unchanged against this
 * starter, on the embedded MongoDB and Redis.
 */
class PreviousApiApplicationTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class,
          DataMongoAutoConfiguration.class, DataRedisAutoConfiguration.class,
          WriteGuardAutoConfiguration.class, WriteGuardRedisAutoConfiguration.class))
      .withPropertyValues("spring.mongodb.uri=" + TestServers.mongoUri(),
          "spring.mongodb.database=" + TestServers.freshDatabase("previousapi"),
          "spring.data.redis.url=" + TestServers.redisUri())
      .withBean(PreviousApiAccountService.class);

  @Test
  void anApplicationInjectingRedisLockServiceStartsAndServes() {
    runner.run(context -> {
      assertThat(context).hasNotFailed();
      context.getBean(MongoTemplate.class).insert(new PreviousApiAccount("a1"));
      PreviousApiAccountService service = context.getBean(PreviousApiAccountService.class);

      assertThat(service.deposit("a1", 10).getBalance()).isEqualTo(10);
      assertThat(service.withdrawUnderLock("a1", 3, null)).isEqualTo(7);
      assertThat(service.tokenOfAHandTakenLock("previous-api:job")).isPositive();
    });
  }

  /**
   * The injected service and the starter's lazily connecting bean are one lock service: a key
   * held through one is busy through the other (two services would each have their own local
   * queue and owner id), and {@code @LeaseLocked(service = "redis")} still finds one backend.
   */
  @Test
  void theInjectedServiceIsTheOneBehindTheLazyBean() {
    runner.run(context -> {
      PreviousApiAccountService service = context.getBean(PreviousApiAccountService.class);
      LazyLockService lazy = context.getBean(WriteGuardRedisAutoConfiguration.REDIS_LOCK_SERVICE,
          LazyLockService.class);
      RedisLockService injected = service.redisLocks();
      assertThat(lazy.service()).isSameAs(injected);
      try (LockHandle held = injected.acquire("previous-api:shared", Duration.ofSeconds(5))) {
        Optional<LockHandle> second = lazy.tryAcquire("previous-api:shared");
        assertThat(second).isEmpty();
      }
      assertThat(context.getBeansOfType(LockService.class).values().stream()
          .filter(s -> s.backend().equals("redis")).map(s -> s instanceof LazyLockService
              ? ((LazyLockService) s).service() : s).distinct().count()).isEqualTo(1);
    });
  }
}
