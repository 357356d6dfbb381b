package io.writeguard.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.lock.LocalLockService;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** Adversarial review of the reactive facade: interleavings forced with latches. */
class ReactiveWriteGuardReviewTest {
  private final List<ReactiveWriteGuard> guards = new CopyOnWriteArrayList<>();

  private ReactiveWriteGuard track(ReactiveWriteGuard guard) {
    guards.add(guard);
    return guard;
  }

  @AfterEach
  void close() {
    guards.forEach(g -> g.executor().close(Duration.ofSeconds(2)));
  }

  /** Docs: results arrive on deliverOn, never on a writer (here: finishing) thread. */
  @Test
  void withLockDeliversItsOutcomeOnDeliverOnNotOnAFinishingThread() {
    ReactiveWriteGuard guard = track(ReactiveWriteGuard.builder().threads(1).queueCapacity(4)
        .name("wg-review-a").build());
    LocalLockService locks = LocalLockService.create();
    String thread = guard.withLock(locks, "a", Duration.ofSeconds(1), h -> Mono.just(1))
        .map(x -> Thread.currentThread().getName())
        .block(Duration.ofSeconds(5));
    assertThat(thread).doesNotContain("finish").startsWith("parallel-");
  }

  /**
   * A subscriber that waits (on a thread where waiting is allowed) for a second locked Mono
   * must not hang: with the outcome delivered on the only finishing thread, the second
   * Mono's release is queued behind the very code that waits for it.
   */
  @Test
  void aSubscriberWaitingForASecondLockedMonoDoesNotDeadlockTheReleases() {
    ReactiveWriteGuard guard = track(ReactiveWriteGuard.builder().threads(1).queueCapacity(4)
        .name("wg-review-b").deliverOn(Schedulers.boundedElastic()).build());
    LocalLockService locks = LocalLockService.create();
    CompletableFuture<Integer> outcome = guard
        .withLock(locks, "a", Duration.ofSeconds(1), h -> Mono.just(1))
        .map(x -> guard.withLock(locks, "b", Duration.ofSeconds(1), h -> Mono.just(2))
            .toFuture().join())
        .toFuture();
    assertThat(outcome).succeedsWithin(Duration.ofSeconds(5)).isEqualTo(2);
  }

  /** close(grace) that has to interrupt must still end the Monos of calls still queued. */
  @Test
  void closeThatGivesUpOnQueuedCallsStillEndsTheirMonos() throws Exception {
    ReactiveWriteGuard guard = ReactiveWriteGuard.builder().threads(1).queueCapacity(4)
        .name("wg-review-c").build();
    CountDownLatch running = new CountDownLatch(1);
    guard.call(() -> {
      running.countDown();
      long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(800);
      while (System.nanoTime() < end) {
        Thread.onSpinWait(); // a call that does not stop when interrupted
      }
      return 1;
    }).subscribe(v -> {}, e -> {});
    assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
    AtomicReference<String> told = new AtomicReference<>();
    CountDownLatch ended = new CountDownLatch(1);
    guard.call(() -> 2).subscribe(v -> { told.set("next"); ended.countDown(); },
        e -> { told.set("error " + e); ended.countDown(); }, ended::countDown);
    guard.executor().close(Duration.ofMillis(100));
    assertThat(ended.await(5, TimeUnit.SECONDS))
        .as("the queued call's subscriber was told something (was: %s)", told.get()).isTrue();
  }

  /**
   * A cancel (timeout) of a locked Mono whose work is a facade call that, by design, runs to
   * its end: the lock must not go to the next caller while that work still runs.
   */
  @Test
  void aCancelledLockedMonoDoesNotLetTheNextHolderInWhileItsWorkStillRuns() throws Exception {
    ReactiveWriteGuard guard = track(ReactiveWriteGuard.builder().threads(4).queueCapacity(8)
        .name("wg-review-d").build());
    LocalLockService locks = LocalLockService.create();
    AtomicInteger inside = new AtomicInteger();
    CountDownLatch started = new CountDownLatch(1);
    Disposable first = guard.withLock(locks, "k", Duration.ofSeconds(5), h -> guard.call(() -> {
      inside.incrementAndGet();
      started.countDown();
      try {
        Thread.sleep(700); // the write in flight; never interrupted by a cancel
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        inside.decrementAndGet();
      }
      return 1;
    })).subscribe();
    assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
    first.dispose(); // e.g. timeout(...) on the caller's side
    Integer overlapping = guard.withLock(locks, "k", Duration.ofSeconds(5),
        h -> guard.call(inside::get)).block(Duration.ofSeconds(5));
    assertThat(overlapping).as("works running under lock 'k' when the second holder got it")
        .isZero();
  }

  /**
   * Callers waiting for a lock take every executor thread; the holder's own work (a facade
   * call) is queued behind them, so nobody progresses until the waits run out.
   */
  @Test
  void waitersOnEveryThreadDoNotStarveTheHoldersWork() throws Exception {
    ReactiveWriteGuard guard = track(ReactiveWriteGuard.builder().threads(2).queueCapacity(8)
        .name("wg-review-e").build());
    LocalLockService locks = LocalLockService.create();
    CountDownLatch held = new CountDownLatch(1);
    CompletableFuture<String> holder = guard.withLock(locks, "k", Duration.ofSeconds(5),
        h -> {
          held.countDown();
          return Mono.delay(Duration.ofMillis(300)).then(guard.call(() -> "written"));
        }).toFuture();
    assertThat(held.await(5, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<String> w1 = guard.withLock(locks, "k", Duration.ofSeconds(3),
        h -> Mono.just("w1")).toFuture();
    CompletableFuture<String> w2 = guard.withLock(locks, "k", Duration.ofSeconds(3),
        h -> Mono.just("w2")).toFuture();
    assertThat(holder).succeedsWithin(Duration.ofMillis(1500)).isEqualTo("written");
    assertThat(w1).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("w1");
    assertThat(w2).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("w2");
  }
}
