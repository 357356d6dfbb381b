package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

/**
 * Review of issue 34: writeguard.lock.call-deadline on async {@code @LeaseLocked} methods bounds
 * the lock wait only. It never cuts a lock already had (work that outlasts the deadline keeps
 * the lock to its end, then releases it), it starts at each subscription of a Mono, and a
 * deadline already passed when the wait starts gives the async methods the blocking one's
 * outcome, with no lock left held. Every wait bounded.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaseLockedAsyncDeadlineReviewTest {
  private static final Duration DEADLINE = Duration.ofMillis(300);
  private static final long BOUND_MILLIS = 5_000;

  private static ApplicationContextRunner runner(String deadline) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WriteGuardAutoConfiguration.class,
            WriteGuardReactiveAutoConfiguration.class))
        .withPropertyValues("writeguard.lock.default-service=locks",
            "writeguard.lock.call-deadline=" + deadline)
        .withBean("locks", LockService.class, LocalLockService::create)
        .withBean(Slow.class);
  }

  public static class Slow {
    private final AtomicInteger calls = new AtomicInteger();

    /** How many times a method ran (a method: the proxy has no fields of its own). */
    public int calls() {
      return calls.get();
    }

    @LeaseLocked(key = "'s'", waitTimeout = "20s")
    public Mono<String> mono(CountDownLatch entered, CompletableFuture<String> gate) {
      calls.incrementAndGet();
      entered.countDown();
      return Mono.fromFuture(gate);
    }

    @LeaseLocked(key = "'s'", waitTimeout = "20s")
    public CompletableFuture<String> future(CountDownLatch entered,
        CompletableFuture<String> gate) {
      calls.incrementAndGet();
      entered.countDown();
      return gate;
    }

    @LeaseLocked(key = "'s'", waitTimeout = "20s")
    public String blocking() {
      calls.incrementAndGet();
      return "blocking";
    }

    @LeaseLocked(key = "'s'", waitTimeout = "20s")
    public Mono<String> quick() {
      calls.incrementAndGet();
      return Mono.just("quick");
    }
  }

  private static Object outcome(CompletableFuture<?> f) {
    try {
      return f.get(BOUND_MILLIS, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      return e.getCause().getClass();
    } catch (TimeoutException e) {
      return e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Waits until {@code since} is more than {@code span} ago (the clock deadlines run on). */
  private static void letPass(long since, Duration span) {
    await().atMost(Duration.ofMillis(BOUND_MILLIS))
        .until(() -> System.nanoTime() - since > span.toNanos());
  }

  private static void lockIsFree(LockService locks) {
    try (LockHandle free = locks.acquire("s", Duration.ofSeconds(2))) {
      assertThat(free.isReleased()).isFalse();
    }
  }

  /** The work outlasts the call deadline: its lock is kept to its end, then released. */
  private void aLockHadIsNeverCutByTheDeadline(
      Function<Slow, Function<CountDownLatch, Function<CompletableFuture<String>,
          CompletableFuture<String>>>> call) {
    runner("300ms").run(context -> {
      LockService locks = context.getBean("locks", LockService.class);
      Slow slow = context.getBean(Slow.class);
      CountDownLatch entered = new CountDownLatch(1);
      CompletableFuture<String> gate = new CompletableFuture<>();
      long start = System.nanoTime();
      CompletableFuture<String> answer = call.apply(slow).apply(entered).apply(gate);
      assertThat(entered.await(BOUND_MILLIS, TimeUnit.MILLISECONDS)).isTrue();
      letPass(start, DEADLINE.multipliedBy(2));

      assertThat(answer).as("not cut by the deadline").isNotDone();
      assertThat(locks.tryAcquire("s")).as("the lock is still held").isEmpty();
      gate.complete("slow");
      assertThat(outcome(answer)).isEqualTo("slow");
      lockIsFree(locks);
    });
  }

  @Test
  void aMonoMethodOutlastingTheCallDeadlineKeepsItsLockToItsEndThenReleasesIt() {
    aLockHadIsNeverCutByTheDeadline(s -> e -> g -> s.mono(e, g).toFuture());
  }

  @Test
  void aFutureMethodOutlastingTheCallDeadlineKeepsItsLockToItsEndThenReleasesIt() {
    aLockHadIsNeverCutByTheDeadline(s -> e -> g -> s.future(e, g));
  }

  /** The deadline runs from each subscription, not from when the Mono was made. */
  @Test
  void aMonoSubscribedTwiceAfterTheDeadlineSinceItsAssemblyGetsAFreshDeadlineEachTime() {
    runner("300ms").run(context -> {
      LockService locks = context.getBean("locks", LockService.class);
      Slow slow = context.getBean(Slow.class);
      long start = System.nanoTime();
      Mono<String> quick = slow.quick();
      letPass(start, DEADLINE.multipliedBy(2));
      try (LockHandle other = locks.acquire("s", Duration.ofSeconds(1))) {
        CompletableFuture<String> waiting = quick.toFuture();
        // Held by another for less than the deadline: the wait ends in time with the lock.
        await().atMost(Duration.ofMillis(BOUND_MILLIS)).until(() -> slow.calls() == 0
            && !waiting.isDone());
        other.close();
        assertThat(outcome(waiting)).isEqualTo("quick");
      }
      assertThat(outcome(quick.toFuture())).isEqualTo("quick");
      assertThat(slow.calls()).isEqualTo(2);
      lockIsFree(locks);
    });
  }

  /** A deadline passed before the wait starts: the async methods end as the blocking one. */
  @Test
  void aDeadlinePassedAtTheStartGivesTheBlockingOutcomeAndLeavesNoLockHeld() {
    runner("1ns").run(context -> {
      LockService locks = context.getBean("locks", LockService.class);
      Slow slow = context.getBean(Slow.class);
      Throwable blockingFailure = catchThrowable(slow::blocking);
      Object blocking = blockingFailure == null ? "blocking" : blockingFailure.getClass();
      Object mono = outcome(slow.quick().toFuture());
      CountDownLatch entered = new CountDownLatch(1);
      Object future = outcome(slow.future(entered, CompletableFuture.completedFuture("blocking")));

      assertThat(mono).as("mono vs blocking").isEqualTo(
          blocking.equals("blocking") ? "quick" : blocking);
      assertThat(future).as("future vs blocking").isEqualTo(blocking);
      lockIsFree(locks);
    });
  }
}
