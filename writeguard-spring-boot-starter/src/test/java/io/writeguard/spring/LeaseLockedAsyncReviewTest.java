package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockService;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.scheduler.Schedulers;

/**
 * Adversarial review of asynchronous {@code @LeaseLocked}: where the body of a method
 * returning a future runs once the lock is had.
 */
class LeaseLockedAsyncReviewTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WriteGuardAutoConfiguration.class,
          WriteGuardReactiveAutoConfiguration.class))
      .withPropertyValues("writeguard.lock.default-service=locks")
      .withBean("locks", LockService.class, LocalLockService::create)
      .withBean(Settlements.class);

  public static class Settlements {
    /** A typical future-returning body: blocking work done before the future is returned. */
    @LeaseLocked(key = "'s:' + #id", waitTimeout = "5s")
    public CompletableFuture<String> settle(String id) {
      return CompletableFuture.completedFuture(where());
    }

    @LeaseLocked(key = "'s:' + #id", waitTimeout = "5s")
    public CompletionStage<String> settleStage(String id) {
      return CompletableFuture.completedFuture(where());
    }

    private static String where() {
      return Thread.currentThread().getName()
          + (Schedulers.isInNonBlockingThread() ? " (non-blocking)" : "");
    }
  }

  /**
   * Without the lock the body would run on the caller's thread, where it may block; with it,
   * it must not be moved to a Reactor non-blocking thread (parallel()), where a blocking
   * repository call, a JDBC transaction of an inner @Transactional, or a join() is forbidden.
   */
  @Test
  void theBodyOfALockedFutureMethodNeverRunsOnANonBlockingThread() {
    runner.run(context -> {
      Settlements settlements = context.getBean(Settlements.class);
      assertThat(settlements.settle("a")).succeedsWithin(Duration.ofSeconds(5))
          .asString().doesNotContain("non-blocking");
      assertThat(settlements.settleStage("b").toCompletableFuture())
          .succeedsWithin(Duration.ofSeconds(5))
          .asString().doesNotContain("non-blocking");
    });
  }
}
