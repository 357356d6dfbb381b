package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The health check answers within its own timeout, whatever a stalled store does. */
class WriteGuardHealthIndicatorTest {

  /** A store whose check blocks until {@link #answer} is counted down (a stalled server). */
  static final class StalledStore implements LockStoreProbe {
    final CountDownLatch answer = new CountDownLatch(1);
    final AtomicInteger checks = new AtomicInteger();

    @Override
    public String name() {
      return "stalled";
    }

    @Override
    public String check() {
      checks.incrementAndGet();
      try {
        answer.await(); // blocks as a ping to a stalled server does
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted");
      }
      return "back";
    }
  }

  private static LockStoreProbe answering(String name) {
    return new LockStoreProbe() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String check() {
        return "fine";
      }
    };
  }

  @Test
  void aStoreThatDoesNotAnswerIsDownWithinTheTimeoutAndTheOthersAreStillReported()
      throws InterruptedException {
    StalledStore stalled = new StalledStore();
    try (var indicator = new WriteGuardHealthIndicator(
        List.of(answering("mongo"), stalled), Duration.ofMillis(100))) {
      Health health = indicator.health(); // returns although the stalled check never does

      assertThat(health.getStatus()).isEqualTo(Status.DOWN);
      assertThat(health.getDetails())
          .containsEntry("mongo", "UP: fine")
          .containsEntry("stalled", "DOWN: no answer within 100 ms");

      // still stalled: the first check, a timeout old, is abandoned and one new check sent
      assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
      assertThat(stalled.checks).hasValue(2);

      stalled.answer.countDown(); // the server answers again
      awaitUp(indicator);
      assertThat(indicator.health().getDetails()).containsEntry("stalled", "UP: back");
    } finally {
      stalled.answer.countDown();
    }
  }

  @Test
  void aStoreThatFailsIsDownWithItsError() {
    LockStoreProbe failing = new LockStoreProbe() {
      @Override
      public String name() {
        return "redis";
      }

      @Override
      public String check() {
        throw new IllegalStateException("connection refused");
      }
    };
    try (var indicator = new WriteGuardHealthIndicator(List.of(failing))) {
      Health health = indicator.health();
      assertThat(health.getStatus()).isEqualTo(Status.DOWN);
      assertThat(health.getDetails().get("redis").toString())
          .startsWith("DOWN: ").contains("connection refused");
    }
  }

  @Test
  void theTimeoutIsWriteguardHealthTimeoutTwoSecondsByDefault() {
    StalledStore stalled = new StalledStore();
    ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class,
            DataMongoAutoConfiguration.class, WriteGuardAutoConfiguration.class,
            WriteGuardHealthAutoConfiguration.class))
        .withPropertyValues("spring.mongodb.uri=" + TestServers.mongoUri(),
            "spring.mongodb.database=" + TestServers.freshDatabase("health"))
        .withBean("stalledProbe", LockStoreProbe.class, () -> stalled);
    try {
      runner.run(context -> assertThat(context.getBean(WriteGuardHealthIndicator.class)
          .timeout()).isEqualTo(Duration.ofSeconds(2)));
      runner.withPropertyValues("writeguard.health.timeout=100ms").run(context -> {
        Health health = context.getBean(WriteGuardHealthIndicator.class).health();
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails())
            .containsEntry("stalled", "DOWN: no answer within 100 ms")
            .containsKey("mongo"); // a first ping may take longer than 100 ms: either answer
      });
    } finally {
      stalled.answer.countDown();
    }
  }

  private static void awaitUp(WriteGuardHealthIndicator indicator) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (indicator.health().getStatus() != Status.UP && System.nanoTime() < until) {
      Thread.sleep(10);
    }
    assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
  }
}
