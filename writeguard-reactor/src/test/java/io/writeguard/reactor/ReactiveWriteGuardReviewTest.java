package io.writeguard.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import java.time.Duration;
import java.util.List;
import java.util.Random;
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

  /**
   * Lock waits queued behind a full lock-wait pool: a cancel of one still queued withdraws it
   * (it never acquires, its work never runs), and one past the queue fails at once, typed.
   */
  @Test
  void aCancelBeforeTheLockIsHadNeverRunsTheWorkAndAFullLockWaitPoolIsATypedError()
      throws Exception {
    ReactiveWriteGuard guard = track(ReactiveWriteGuard.builder().threads(2).queueCapacity(1)
        .lockWaiters(1).name("wg-review-f").build());
    CountingLocks locks = new CountingLocks();
    LockHandle other = locks.local.acquire("k", Duration.ofSeconds(10));
    AtomicInteger works = new AtomicInteger();
    CompletableFuture<String> first = guard.withLock(locks, "k", Duration.ofSeconds(30),
        h -> Mono.fromCallable(() -> "first:" + works.incrementAndGet())).toFuture();
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.local.waiting("k") == 1);
    Disposable queued = guard.withLock(locks, "k", Duration.ofSeconds(30),
        h -> Mono.fromCallable(works::incrementAndGet)).subscribe();
    assertThat(guard.lockWaitExecutor().admitted()).isEqualTo(2); // one waiting, one queued
    assertThatThrownBy(() -> guard.withLock(locks, "k", Duration.ofSeconds(30),
        h -> Mono.fromCallable(works::incrementAndGet)).block(Duration.ofSeconds(5)))
        .isInstanceOf(ReactiveQueueFullException.class).hasMessageContaining("wg-review-f-lock");
    queued.dispose(); // withdrawn while queued: it never waits, never acquires
    assertThat(guard.lockWaitExecutor().admitted()).isEqualTo(1);
    other.close();
    assertThat(first).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("first:1");
    await().atMost(Duration.ofSeconds(10)).until(() -> locks.closes.get() == 1);
    await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5))
        .until(() -> locks.acquired.get() == 1 && works.get() == 1);
    assertThat(locks.local.tryAcquire("k")).hasValueSatisfying(LockHandle::close);
  }

  /**
   * Cancels racing the acquire's completion: whichever side wins, a lock had is released
   * exactly once, and a run abandoned before the lock was had never runs its work.
   */
  @Test
  void aCancelRacingTheAcquireReleasesExactlyOnce() {
    ReactiveWriteGuard guard = track(ReactiveWriteGuard.builder().threads(2).queueCapacity(64)
        .lockWaiters(2).name("wg-review-g").build());
    CountingLocks locks = new CountingLocks();
    AtomicInteger works = new AtomicInteger();
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int i = 0; i < 300; i++) {
      Disposable run = guard.withLock(locks, "r", Duration.ofSeconds(30),
          h -> Mono.fromRunnable(works::incrementAndGet)).subscribe();
      long spin = System.nanoTime() + random.nextInt(200_000);
      while (System.nanoTime() < spin) {
        Thread.onSpinWait();
      }
      run.dispose();
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> guard.lockWaitExecutor().admitted() == 0
        && locks.closes.get() == locks.acquired.get());
    assertThat(locks.closes).as("seed %d", seed).hasValue(locks.acquired.get());
    assertThat(works.get()).as("seed %d", seed).isLessThanOrEqualTo(locks.acquired.get());
    assertThat(locks.local.tryAcquire("r")).hasValueSatisfying(LockHandle::close);
  }

  /**
   * 60 holders of one key whose work is a facade call doing a read-sleep-write of a plain
   * counter; a third time out at random, a third are disposed at random: never two works
   * inside at once, the counter exact, every lock had released once, the rest all answered.
   */
  @Test
  void concurrentHoldersWithRandomCancelsAndTimeoutsNeverOverlap() throws Exception {
    ReactiveWriteGuard guard = track(ReactiveWriteGuard.builder().threads(4).queueCapacity(128)
        .lockWaiters(4).name("wg-review-h").build());
    CountingLocks locks = new CountingLocks();
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger entries = new AtomicInteger();
    AtomicInteger exits = new AtomicInteger();
    int[] counter = new int[1]; // unguarded: only the lock keeps its updates from being lost
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<CompletableFuture<Integer>> kept = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 60; i++) {
      int id = i;
      Mono<Integer> locked = guard.withLock(locks, "one", Duration.ofSeconds(60),
          h -> guard.call(() -> {
            if (inside.incrementAndGet() != 1) {
              overlaps.incrementAndGet();
            }
            entries.incrementAndGet();
            int read = counter[0];
            sleep(2);
            counter[0] = read + 1;
            exits.incrementAndGet();
            inside.decrementAndGet();
            return id;
          }));
      switch (i % 3) {
        case 0 -> kept.add(locked.toFuture());
        case 1 -> locked.timeout(Duration.ofMillis(1 + random.nextInt(40)))
            .subscribe(v -> {}, e -> {});
        default -> {
          Disposable run = locked.subscribe();
          Schedulers.parallel().schedule(run::dispose, random.nextInt(40), TimeUnit.MILLISECONDS);
        }
      }
    }
    for (CompletableFuture<Integer> answer : kept) {
      assertThat(answer).as("seed %d", seed).succeedsWithin(Duration.ofSeconds(60));
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> guard.lockWaitExecutor().admitted() == 0
        && guard.executor().admitted() == 0 && locks.closes.get() == locks.acquired.get());
    assertThat(overlaps).as("seed %d", seed).hasValue(0);
    assertThat(counter[0]).as("seed %d", seed).isEqualTo(entries.get());
    assertThat(exits).as("seed %d", seed).hasValue(entries.get());
    assertThat(entries.get()).as("seed %d", seed)
        .isBetween(kept.size(), locks.acquired.get());
    assertThat(kept).extracting(CompletableFuture::join).doesNotHaveDuplicates().hasSize(20);
    assertThat(locks.local.tryAcquire("one")).hasValueSatisfying(LockHandle::close);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
