package io.writeguard.reactor;

import static io.writeguard.testing.Sneaky.checked;
import static io.writeguard.testing.Sneaky.sneakyThrow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.writeguard.lock.LockHandle;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.scheduler.Schedulers;

/**
 * Issue 34 for the Reactor facade: no call is left hanging. A result Reactor drops after a
 * cancel reaches {@code ifCancelled} exactly once; work that throws an {@code Error} or an
 * undeclared checked exception ends its Mono with it and releases its lock; a facade call that
 * blocks on another one never deadlocks the bounded pool. Interleavings forced with a blocked
 * delivery thread; every wait bounded (5 s).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReactiveNoCallLeftHangingTest {
  private static final Duration BOUND = Duration.ofSeconds(5);
  private final List<ReactiveWriteGuard> guards = new CopyOnWriteArrayList<>();
  private final List<ExecutorService> pools = new CopyOnWriteArrayList<>();

  private ReactiveWriteGuard track(ReactiveWriteGuard guard) {
    guards.add(guard);
    return guard;
  }

  @AfterEach
  void close() {
    guards.forEach(g -> g.executor().close(Duration.ofSeconds(2)));
    pools.forEach(ExecutorService::shutdownNow);
  }

  /** One thread, which the test holds up, so that what is scheduled on it waits in its queue. */
  private ThreadPoolExecutor heldDelivery(CountDownLatch release) {
    ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
        new LinkedBlockingQueue<>());
    pools.add(pool);
    pool.execute(() -> awaitQuietly(release));
    return pool;
  }

  @Test
  void aResultWaitingInPublishOnWhenTheSubscriberCancelsGoesToIfCancelledOnce() {
    CountDownLatch release = new CountDownLatch(1);
    ThreadPoolExecutor delivery = heldDelivery(release);
    ReactiveWriteGuard guard = track(ReactiveWriteGuard.builder().threads(1).queueCapacity(4)
        .name("wg-hang-a").deliverOn(Schedulers.fromExecutorService(delivery)).build());
    CountingLocks locks = new CountingLocks();
    AtomicInteger toIfCancelled = new AtomicInteger();
    AtomicInteger delivered = new AtomicInteger();
    Disposable run = guard.<LockHandle>call(() -> locks.acquire("k", BOUND), handle -> {
      toIfCancelled.incrementAndGet();
      handle.close();
    }).subscribe(h -> delivered.incrementAndGet());
    // The handle was produced and handed to publishOn, which waits for the held thread.
    await().atMost(BOUND).until(() -> delivery.getQueue().size() == 1);
    run.dispose();
    release.countDown();

    await().atMost(BOUND).until(() -> locks.closes.get() == 1);
    await().during(Duration.ofMillis(200)).atMost(BOUND)
        .until(() -> toIfCancelled.get() == 1 && delivered.get() == 0);
    assertThat(locks.local.tryAcquire("k")).hasValueSatisfying(LockHandle::close);
  }

  /**
   * Cancels racing the end of the call at random: while it runs, between its end and the sink,
   * while the result waits for the delivery thread. Whichever hop the cancel hits, each result
   * reaches the subscriber's onNext or {@code ifCancelled}, exactly once.
   */
  @Test
  void cancelsRacingTheResultHandEveryResultOnExactlyOnce() {
    ReactiveWriteGuard guard = track(ReactiveWriteGuard.builder().threads(2).queueCapacity(1024)
        .name("wg-hang-b").build());
    AtomicInteger produced = new AtomicInteger();
    Set<Integer> delivered = ConcurrentHashMap.newKeySet();
    Set<Integer> cancelled = ConcurrentHashMap.newKeySet();
    AtomicInteger handOns = new AtomicInteger();
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int i = 0; i < 600; i++) {
      // A BaseSubscriber's hookOnNext sees what reaches the subscriber even after its cancel
      // (subscribe(Consumer) would drop that itself, which no publisher can see).
      BaseSubscriber<Integer> run = new BaseSubscriber<>() {
        @Override
        protected void hookOnNext(Integer r) {
          handOns.incrementAndGet();
          delivered.add(r);
        }
      };
      guard.<Integer>call(produced::incrementAndGet, r -> {
        handOns.incrementAndGet();
        cancelled.add(r);
      }).subscribe(run);
      long spin = System.nanoTime() + random.nextInt(100_000);
      while (System.nanoTime() < spin) {
        Thread.onSpinWait();
      }
      run.dispose();
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> guard.executor().admitted() == 0
        && handOns.get() >= produced.get());
    await().during(Duration.ofMillis(200)).atMost(BOUND)
        .until(() -> handOns.get() == produced.get());
    assertThat(delivered.size() + cancelled.size()).as("seed %d", seed)
        .isEqualTo(produced.get());
    // Not doesNotContainAnyElementsOf: AssertJ refuses an empty set, and a run in which every
    // cancel landed before its call started or after its delivery hands nothing back.
    Set<Integer> both = new java.util.HashSet<>(delivered);
    both.retainAll(cancelled);
    assertThat(both).as("seed %d: results given to both", seed).isEmpty();
  }

  @Test
  void aCallWhoseWorkThrowsACheckedExceptionEndsItsMonoWithIt() {
    ReactiveWriteGuard guard = track(ReactiveWriteGuard.builder().threads(1).queueCapacity(4)
        .name("wg-hang-c").build());
    IOException thrown = checked("the facade call's work");
    CompletableFuture<Integer> answer = guard.<Integer>call(() -> sneakyThrow(thrown))
        .toFuture();

    assertThat(answer).failsWithin(BOUND).withThrowableOfType(Exception.class)
        .havingCause().isSameAs(thrown);
    assertThat(guard.call(() -> 1).block(BOUND)).as("the pool thread lives on").isEqualTo(1);
  }

  @Test
  void withLockWorkThrowingACheckedExceptionReleasesTheLockAndEndsTheMonoWithIt() {
    ReactiveWriteGuard guard = track(ReactiveWriteGuard.builder().threads(1).queueCapacity(4)
        .name("wg-hang-d").build());
    CountingLocks locks = new CountingLocks();
    IOException thrown = checked("the locked work");
    CompletableFuture<Integer> answer = guard.<Integer>withLock(locks, "k", BOUND,
        h -> sneakyThrow(thrown)).toFuture();

    assertThat(answer).failsWithin(BOUND).withThrowableOfType(Exception.class)
        .havingCause().isSameAs(thrown);
    await().atMost(BOUND).until(() -> locks.closes.get() == 1);
    assertThat(locks.local.tryAcquire("k")).hasValueSatisfying(LockHandle::close);
  }

  @Test
  void withLockWorkThrowingAnErrorReleasesTheLockAndEndsTheMonoWithIt() {
    ReactiveWriteGuard guard = track(ReactiveWriteGuard.builder().threads(1).queueCapacity(4)
        .name("wg-hang-e").build());
    CountingLocks locks = new CountingLocks();
    AssertionError thrown = new AssertionError("thrown by the locked work");
    CompletableFuture<Integer> answer = guard.<Integer>withLock(locks, "k", BOUND, h -> {
      throw thrown;
    }).toFuture();

    assertThat(answer).failsWithin(BOUND).withThrowableOfType(Exception.class)
        .havingCause().isSameAs(thrown);
    await().atMost(BOUND).until(() -> locks.closes.get() == 1);
    assertThat(locks.local.tryAcquire("k")).hasValueSatisfying(LockHandle::close);
  }

  /** With one thread, the inner call could only queue behind the outer one that waits for it. */
  @Test
  void aCallThatBlocksOnANestedCallIsAnsweredOnAOneThreadPool() {
    ReactiveWriteGuard guard = track(ReactiveWriteGuard.builder().threads(1).queueCapacity(4)
        .name("wg-hang-f").build());
    CompletableFuture<String> answer = guard.call(() -> {
      String outer = Thread.currentThread().getName();
      String inner = guard.call(() -> Thread.currentThread().getName()).block(BOUND);
      return outer + " then " + inner;
    }).toFuture();

    assertThat(answer).succeedsWithin(BOUND)
        .isEqualTo("wg-hang-f-1 then wg-hang-f-1"); // inline, on the calling pool thread
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
