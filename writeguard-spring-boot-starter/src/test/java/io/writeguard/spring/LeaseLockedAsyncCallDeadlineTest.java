package io.writeguard.spring;

import static io.writeguard.testing.Sneaky.checked;
import static io.writeguard.testing.Sneaky.sneakyThrow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import java.io.IOException;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

/**
 * Issue 34: {@code writeguard.lock.call-deadline} bounds the lock wait of a {@code @LeaseLocked}
 * method returning a {@code Mono} or a {@code CompletableFuture} as it does a blocking one's
 * (300 ms deadline, 20 s wait, another holder: answered within 4 s, with the blocking method's
 * error); and an async locked method that throws an undeclared checked exception fails its
 * caller with it and releases its lock.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaseLockedAsyncCallDeadlineTest {
  private static final long BOUND_MILLIS = 4_000;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WriteGuardAutoConfiguration.class,
          WriteGuardReactiveAutoConfiguration.class))
      .withPropertyValues("writeguard.lock.default-service=locks",
          "writeguard.lock.call-deadline=300ms")
      .withBean("locks", LockService.class, LocalLockService::create)
      .withBean(Waits.class);

  public static class Waits {
    @LeaseLocked(key = "'k'", waitTimeout = "20s")
    public String blocking() {
      return "blocking";
    }

    @LeaseLocked(key = "'k'", waitTimeout = "20s")
    public Mono<String> mono() {
      return Mono.just("mono");
    }

    @LeaseLocked(key = "'k'", waitTimeout = "20s")
    public CompletableFuture<String> future() {
      return CompletableFuture.completedFuture("future");
    }

    @LeaseLocked(key = "'t'")
    public Mono<String> monoThrowing(IOException thrown) {
      return sneakyThrow(thrown);
    }

    @LeaseLocked(key = "'t'")
    public CompletableFuture<String> futureThrowing(IOException thrown) {
      return sneakyThrow(thrown);
    }

    @LeaseLocked(key = "'t'")
    public String blockingThrowing(IOException thrown) {
      return sneakyThrow(thrown);
    }
  }

  /** What {@code f} failed with, or the TimeoutException when it was not answered in time. */
  private static Throwable failureWithin(CompletableFuture<?> f, long millis) {
    try {
      f.get(millis, TimeUnit.MILLISECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      return e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Fails as the blocking method does, while another holder keeps the lock. */
  private void failsInTimeAsTheBlockingOne(Function<Waits, CompletableFuture<String>> async) {
    runner.run(context -> {
      LockService locks = context.getBean("locks", LockService.class);
      Waits waits = context.getBean(Waits.class);
      try (LockHandle other = locks.acquire("k", Duration.ofSeconds(1))) {
        Throwable blocking = catchThrowable(waits::blocking);
        assertThat(blocking).as("the blocking method's failure").isNotNull();
        Throwable failure = failureWithin(async.apply(waits), BOUND_MILLIS);
        assertThat(failure).as("the async method's failure within %d ms", BOUND_MILLIS)
            .isNotInstanceOf(TimeoutException.class).isNotNull()
            .hasSameClassAs(blocking);
        assertThat(other.isReleased()).isFalse();
      }
    });
  }

  @Test
  void theCallDeadlineBoundsTheLockWaitOfAMonoMethod() {
    failsInTimeAsTheBlockingOne(waits -> waits.mono().toFuture());
  }

  @Test
  void theCallDeadlineBoundsTheLockWaitOfAFutureMethod() {
    failsInTimeAsTheBlockingOne(Waits::future);
  }

  @Test
  void asyncAndBlockingLockedMethodsThatThrowACheckedExceptionFailWithItAndRelease() {
    runner.run(context -> {
      LockService locks = context.getBean("locks", LockService.class);
      Waits waits = context.getBean(Waits.class);
      IOException thrown = checked("the locked method");
      // Spring's class proxy wraps an exception a Java method does not declare (not ours to
      // change; it leaves Kotlin's alone): the caller gets it, as the cause.
      Throwable blocking = catchThrowable(() -> waits.blockingThrowing(thrown));
      assertThat(blocking instanceof UndeclaredThrowableException u ? u.getCause() : blocking)
          .isSameAs(thrown);
      assertThat(failureWithin(waits.monoThrowing(thrown).toFuture(), BOUND_MILLIS))
          .isSameAs(thrown);
      assertThat(failureWithin(waits.futureThrowing(thrown), BOUND_MILLIS)).isSameAs(thrown);
      try (LockHandle free = locks.acquire("t", Duration.ofSeconds(2))) {
        assertThat(free.isReleased()).isFalse();
      }
    });
  }
}
