package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.LockService;
import java.io.IOException;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * The Redis lock connects on first use: the application starts while Redis is down, and
 * {@code @LeaseLocked} calls on it fail with a translated one-line
 * {@code DataAccessResourceFailureException} until Redis answers.
 */
class RedisLockLazyConnectTest {

  public static class Locked {
    private int runs;

    public int runs() { // read through the proxy: its own fields are not the bean's
      return runs;
    }

    @LeaseLocked(key = "'job'", service = "redis", waitTimeout = "1s")
    public void run() {
      runs++;
    }
  }

  /** A local port nobody listens on: connections to it are refused at once. */
  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private ApplicationContextRunner runner(String redisUrl) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class,
            DataMongoAutoConfiguration.class, DataRedisAutoConfiguration.class,
            WriteGuardAutoConfiguration.class, WriteGuardRedisAutoConfiguration.class))
        .withPropertyValues("spring.mongodb.uri=" + TestServers.mongoUri(),
            "spring.mongodb.database=" + TestServers.freshDatabase("lazyredis"),
            "spring.data.redis.url=" + redisUrl, "spring.data.redis.connect-timeout=1s")
        .withBean(Locked.class);
  }

  @Test
  void theApplicationStartsWhileRedisIsDownAndLockedCallsFailWithATypedOneLineException()
      throws IOException {
    runner("redis://127.0.0.1:" + closedPort()).run(context -> {
      assertThat(context).hasNotFailed();
      LazyLockService redis = context.getBean(WriteGuardRedisAutoConfiguration.REDIS_LOCK_SERVICE,
          LazyLockService.class);
      assertThat(redis.backend()).isEqualTo("redis");
      assertThat(redis.connected()).isFalse();

      Locked locked = context.getBean(Locked.class);
      for (int call = 0; call < 2; call++) { // the first connects in vain, the second fails fast
        assertThatThrownBy(locked::run)
            .isInstanceOf(DataAccessResourceFailureException.class)
            .hasCauseInstanceOf(LockBackendException.class)
            .hasMessageContaining("Redis")
            .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
      }
      assertThat(locked.runs()).isZero();
      assertThat(redis.connected()).isFalse();
    });
  }

  @Test
  void withRedisUpTheFirstCallConnects() {
    runner(TestServers.redisUri()).run(context -> {
      LazyLockService redis = context.getBean(WriteGuardRedisAutoConfiguration.REDIS_LOCK_SERVICE,
          LazyLockService.class);
      assertThat(redis.connected()).isFalse();
      context.getBean(Locked.class).run();
      assertThat(context.getBean(Locked.class).runs()).isEqualTo(1);
      assertThat(redis.connected()).isTrue();
      assertThat(redis.service()).isInstanceOf(io.writeguard.redis.RedisLockService.class);
      assertThat(context.getBeansOfType(LockService.class)).containsKey(
          WriteGuardRedisAutoConfiguration.REDIS_LOCK_SERVICE);
    });
  }
}
