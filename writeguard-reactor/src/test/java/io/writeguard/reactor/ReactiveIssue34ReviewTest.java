package io.writeguard.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;

import io.writeguard.lock.LockHandle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Review of issue 34 (the Reactor facade): tries to break CallMono's exactly-once hand-back,
 * the inline nested calls and withLock's release with forced interleavings. Every wait bounded.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReactiveIssue34ReviewTest {
  private static final Duration BOUND = Duration.ofSeconds(5);
  private final List<ReactiveWriteGuard> guards = new CopyOnWriteArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  private ReactiveWriteGuard guard(String name, int threads) {
    ReactiveWriteGuard guard = ReactiveWriteGuard.builder().threads(threads).queueCapacity(4)
        .name(name).build();
    guards.add(guard);
    return guard;
  }

  /** Results are passed on on the executor's thread itself: no hop to wait for. */
  private ReactiveWriteGuard immediateGuard(String name) {
    ReactiveWriteGuard guard = ReactiveWriteGuard.builder().threads(1).queueCapacity(4)
        .name(name).deliverOn(Schedulers.immediate()).build();
    guards.add(guard);
    return guard;
  }

  @AfterEach
  void close() {
    guards.forEach(g -> g.executor().close(Duration.ofSeconds(2)));
    threads.shutdownNow();
  }

  /** Subscribes without requesting: a result waits in the subscription for a request. */
  private static final class Unrequesting<T> extends BaseSubscriber<T> {
    final AtomicInteger nexts = new AtomicInteger();

    @Override
    protected void hookOnSubscribe(Subscription subscription) {
      // no request
    }

    @Override
    protected void hookOnNext(T value) {
      nexts.incrementAndGet();
    }
  }

  /**
   * A cancel must return normally (Reactive Streams 3.15) even when {@code ifCancelled} throws
   * on the result that waited for a request: that result is handed back once and the failure
   * of the hand-back stays with the facade, as it does on the executor's thread.
   */
  @Test
  void aCancelWhoseIfCancelledThrowsReturnsNormallyAndHandsBackOnce() {
    ReactiveWriteGuard guard = immediateGuard("wg-rev-a");
    AtomicInteger handedBack = new AtomicInteger();
    Unrequesting<Integer> subscriber = new Unrequesting<>();
    guard.<Integer>call(() -> 7, r -> {
      handedBack.incrementAndGet();
      throw new IllegalStateException("ifCancelled fails (test)");
    }).subscribe(subscriber);
    // admitted() drops after the outcome was passed on (immediate): the result waits now.
    await().atMost(BOUND).until(() -> guard.executor().admitted() == 0);

    assertThatCode(subscriber::dispose).doesNotThrowAnyException();
    assertThat(handedBack).hasValue(1);
    assertThat(subscriber.nexts).hasValue(0);
  }

  /** A result waiting for its request, a request and a cancel let go at once: one winner. */
  @Test
  void aRequestAndACancelRacingOverAWaitingResultPassItToExactlyOne() throws Exception {
    ReactiveWriteGuard guard = immediateGuard("wg-rev-b");
    int runs = 300;
    AtomicInteger nexts = new AtomicInteger();
    AtomicInteger handedBack = new AtomicInteger();
    for (int i = 0; i < runs; i++) {
      Unrequesting<Integer> subscriber = new Unrequesting<>();
      guard.<Integer>call(() -> 1, r -> handedBack.incrementAndGet()).subscribe(subscriber);
      await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(BOUND)
          .until(() -> guard.executor().admitted() == 0);
      CyclicBarrier together = new CyclicBarrier(2);
      Future<?> request = threads.submit(() -> {
        together.await(5, TimeUnit.SECONDS);
        subscriber.request(1);
        return null;
      });
      Future<?> cancel = threads.submit(() -> {
        together.await(5, TimeUnit.SECONDS);
        subscriber.cancel();
        return null;
      });
      request.get(5, TimeUnit.SECONDS);
      cancel.get(5, TimeUnit.SECONDS);
      nexts.addAndGet(subscriber.nexts.get());
    }
    assertThat(nexts.get() + handedBack.get()).isEqualTo(runs);
  }

  /** The same Mono subscribed twice is two calls: each result handed on once, to its own. */
  @Test
  void aCallSubscribedTwiceRunsTwiceAndHandsEachResultOnOnce() {
    ReactiveWriteGuard guard = immediateGuard("wg-rev-c");
    AtomicInteger runs = new AtomicInteger();
    AtomicInteger handedBack = new AtomicInteger();
    Mono<Integer> call = guard.call(runs::incrementAndGet, r -> handedBack.incrementAndGet());
    Unrequesting<Integer> cancelled = new Unrequesting<>();
    call.subscribe(cancelled);
    assertThat(call.block(BOUND)).isEqualTo(2);
    await().atMost(BOUND).until(() -> guard.executor().admitted() == 0);
    cancelled.dispose();
    cancelled.dispose();

    assertThat(runs).hasValue(2);
    assertThat(handedBack).hasValue(1);
    assertThat(cancelled.nexts).hasValue(0);
  }

  /**
   * A thread blocked on a call is interrupted: block() cancels; the lock the work still takes
   * goes to ifCancelled once and is free again.
   */
  @Test
  void anInterruptedBlockerCancelsAndTheLockTakenMeanwhileIsReleasedOnce() throws Exception {
    ReactiveWriteGuard guard = guard("wg-rev-d", 1);
    CountingLocks locks = new CountingLocks();
    CountDownLatch inWork = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    AtomicInteger handedBack = new AtomicInteger();
    Future<Throwable> blocker = threads.submit(() -> {
      try {
        guard.<LockHandle>call(() -> {
          inWork.countDown();
          awaitQuietly(go);
          return locks.acquire("k", BOUND);
        }, h -> {
          handedBack.incrementAndGet();
          h.close();
        }).block(BOUND);
        return null;
      } catch (RuntimeException e) {
        return e;
      }
    });
    assertThat(inWork.await(5, TimeUnit.SECONDS)).isTrue();
    blocker.cancel(true); // interrupts the blocked thread
    await().atMost(BOUND).until(blocker::isDone);
    go.countDown();

    await().atMost(BOUND).until(() -> locks.closes.get() == 1);
    await().during(Duration.ofMillis(100)).atMost(BOUND)
        .until(() -> handedBack.get() == 1 && locks.closes.get() == 1);
    assertThat(locks.local.tryAcquire("k")).hasValueSatisfying(LockHandle::close);
    await().atMost(BOUND).until(() -> guard.executor().admitted() == 0);
  }

  /**
   * A nested call made after close() began, from work that was running: blocking code would
   * run it, so it runs inline and is answered; a new top-level call is refused.
   */
  @Test
  void aNestedCallFromWorkRunningWhileTheExecutorClosesIsAnsweredInline() throws Exception {
    ReactiveWriteGuard guard = guard("wg-rev-e", 1);
    CountDownLatch inWork = new CountDownLatch(1);
    CountDownLatch closing = new CountDownLatch(1);
    CompletableFuture<String> outer = guard.<String>call(() -> {
      inWork.countDown();
      awaitQuietly(closing);
      return "outer+" + guard.call(() -> "inner").block(BOUND);
    }).toFuture();
    assertThat(inWork.await(5, TimeUnit.SECONDS)).isTrue();
    Future<?> closed = threads.submit(() -> guard.executor().close(Duration.ofSeconds(5)));
    // A top-level submission is refused at once once close() began (never queued).
    await().atMost(BOUND).until(() -> {
      try {
        guard.executor().submit(() -> "late", (r, e) -> { }, r -> { });
        return false;
      } catch (IllegalStateException refused) {
        return true;
      }
    });
    closing.countDown();

    assertThat(outer).succeedsWithin(BOUND).isEqualTo("outer+inner");
    closed.get(5, TimeUnit.SECONDS);
    assertThat(guard.executor().admitted()).isZero();
  }

  /** Nested calls 200 deep on one thread: each inline, answered, no slot left taken. */
  @Test
  void nestedCallsTwoHundredDeepOnOneThreadAreAllAnsweredAndTakeNoSlot() {
    ReactiveWriteGuard guard = guard("wg-rev-f", 1);
    AtomicInteger maxAdmitted = new AtomicInteger();
    CompletableFuture<Integer> answer = nest(guard, 200, maxAdmitted).toFuture();

    assertThat(answer).succeedsWithin(BOUND).isEqualTo(200);
    assertThat(maxAdmitted).hasValue(1); // only the outermost call took a slot
    await().atMost(BOUND).until(() -> guard.executor().admitted() == 0);
    assertThat(guard.call(() -> 1).block(BOUND)).isEqualTo(1);
  }

  private static Mono<Integer> nest(ReactiveWriteGuard guard, int depth,
      AtomicInteger maxAdmitted) {
    return guard.call(() -> {
      maxAdmitted.accumulateAndGet(guard.executor().admitted(), Math::max);
      return depth == 0 ? 0 : nest(guard, depth - 1, maxAdmitted).block(BOUND) + 1;
    });
  }

  /**
   * The delivery scheduler throws an Error instead of taking the outcome (a scheduler that
   * starts threads on demand throws OutOfMemoryError "unable to create native thread"): the
   * subscriber is still answered, and a lock handle the work produced is handed back once.
   */
  @Test
  void aDeliverySchedulerThatThrowsAnErrorStillAnswersAndHandsTheHandleBack() {
    Scheduler failing = new DelegatingScheduler(Schedulers.immediate()) {
      @Override
      public Disposable schedule(Runnable task) {
        throw new OutOfMemoryError("unable to create native thread (test)");
      }
    };
    ReactiveWriteGuard guard = ReactiveWriteGuard.builder().threads(1).queueCapacity(4)
        .name("wg-rev-g").deliverOn(failing).build();
    guards.add(guard);
    CountingLocks locks = new CountingLocks();
    AtomicInteger handedBack = new AtomicInteger();
    CompletableFuture<LockHandle> answer = guard.<LockHandle>call(
        () -> locks.acquire("k", BOUND), h -> {
          handedBack.incrementAndGet();
          h.close();
        }).toFuture();

    assertThat(answer).failsWithin(BOUND).withThrowableOfType(Exception.class)
        .satisfies(e -> assertThat(e).hasRootCauseInstanceOf(OutOfMemoryError.class));
    assertThat(handedBack).hasValue(1);
    assertThat(locks.local.tryAcquire("k")).hasValueSatisfying(LockHandle::close);
    await().atMost(BOUND).until(() -> guard.executor().admitted() == 0);
  }

  /**
   * withLock: the scheduler the work starts on throws an Error once the lock is had (once: the
   * outcome's own hop, Reactor's publishOn, then works): the lock is released and the Mono ends
   * with that error, as for work that throws.
   */
  @Test
  void withLockWhoseStartSchedulerThrowsAnErrorReleasesTheLockAndAnswers() {
    OutOfMemoryError thrown = new OutOfMemoryError("unable to create native thread (test)");
    AtomicInteger schedules = new AtomicInteger();
    Scheduler failing = new DelegatingScheduler(Schedulers.immediate()) {
      @Override
      public Disposable schedule(Runnable task) {
        if (schedules.incrementAndGet() == 1) {
          throw thrown;
        }
        return super.schedule(task);
      }
    };
    ReactiveWriteGuard guard = ReactiveWriteGuard.builder().threads(1).queueCapacity(4)
        .name("wg-rev-h").deliverOn(failing).build();
    guards.add(guard);
    CountingLocks locks = new CountingLocks();
    AtomicInteger ran = new AtomicInteger();
    CompletableFuture<Integer> answer = guard.<Integer>withLock(locks, "k", BOUND, h -> {
      ran.incrementAndGet();
      return Mono.just(1);
    }).toFuture();

    endedWithAndReleased(answer, thrown, locks);
    assertThat(ran).hasValue(0);
  }

  /** {@code answer} failed with {@code thrown}; the one lock taken was released once. */
  private static void endedWithAndReleased(CompletableFuture<?> answer, Throwable thrown,
      CountingLocks locks) {
    assertThat(answer).failsWithin(BOUND).withThrowableOfType(Exception.class)
        .havingCause().isSameAs(thrown);
    await().atMost(BOUND).until(() -> locks.closes.get() == 1);
    assertThat(locks.local.tryAcquire("k")).hasValueSatisfying(LockHandle::close);
  }

  /**
   * A nested call with a timeout, run inline: the timeout fires while the inner work still
   * runs (the cancel reaches the call), the outer work sees the TimeoutException once the inner
   * work ends, and the inner result, a lock handle, is handed back once and free again.
   */
  @Test
  void aNestedCallsTimeoutFiresWhileItRunsInlineAndItsHandleIsHandedBackOnce() {
    ReactiveWriteGuard guard = guard("wg-rev-i", 1);
    CountingLocks locks = new CountingLocks();
    CountDownLatch cancelled = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    AtomicInteger handedBack = new AtomicInteger();
    CompletableFuture<String> outer = guard.<String>call(() -> {
      try {
        guard.<LockHandle>call(() -> {
          awaitQuietly(go);
          return locks.acquire("k", BOUND);
        }, h -> {
          handedBack.incrementAndGet();
          h.close();
        }).doOnCancel(cancelled::countDown).timeout(Duration.ofMillis(50)).block(BOUND);
        return "no timeout";
      } catch (RuntimeException e) {
        return e.getCause() instanceof java.util.concurrent.TimeoutException
            ? "timeout" : e.toString();
      }
    }).toFuture();
    awaitQuietly(cancelled); // the timeout fired while the inline work waits for go
    assertThat(cancelled.getCount()).isZero();
    assertThat(outer).isNotDone();
    go.countDown();

    assertThat(outer).succeedsWithin(BOUND).isEqualTo("timeout");
    await().atMost(BOUND).until(() -> locks.closes.get() == 1);
    assertThat(handedBack).hasValue(1);
    assertThat(locks.local.tryAcquire("k")).hasValueSatisfying(LockHandle::close);
    await().atMost(BOUND).until(() -> guard.executor().admitted() == 0);
  }

  /** One withLock Mono subscribed twice at once: two runs, never two holders. */
  @Test
  void aWithLockMonoSubscribedTwiceAtOnceNeverHasTwoHolders() {
    ReactiveWriteGuard guard = guard("wg-rev-j", 2);
    CountingLocks locks = new CountingLocks();
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    CountDownLatch firstIn = new CountDownLatch(1);
    CompletableFuture<String> gate = new CompletableFuture<>();
    Mono<String> locked = guard.withLock(locks, "k", BOUND, h -> Mono.defer(() -> {
      most.accumulateAndGet(inside.incrementAndGet(), Math::max);
      firstIn.countDown();
      // Each run waits for the gate. doOnTerminate, not doFinally: doFinally runs after the
      // completion has gone downstream, where the release already began.
      return Mono.fromFuture(gate.thenApply(v -> v))
          .doOnTerminate(inside::decrementAndGet);
    }));
    CompletableFuture<String> a = locked.toFuture();
    CompletableFuture<String> b = locked.toFuture();
    awaitQuietly(firstIn);
    assertThat(locks.acquired).hasValue(1); // the second waits for the lock
    gate.complete("done");

    assertThat(a).succeedsWithin(BOUND).isEqualTo("done");
    assertThat(b).succeedsWithin(BOUND).isEqualTo("done");
    await().atMost(BOUND).until(() -> locks.closes.get() == 2);
    assertThat(most).hasValue(1);
    assertThat(locks.local.tryAcquire("k")).hasValueSatisfying(LockHandle::close);
  }

  /**
   * withLock work whose Mono fails with a JVM-fatal error in an operator after a facade call
   * (a StackOverflowError in a map): Reactor throws such an error out of onNext instead of
   * signalling it; the lock must still be released and the caller answered with it.
   */
  @Test
  void withLockWorkWhoseOperatorThrowsAFatalErrorReleasesTheLockAndAnswers() {
    ReactiveWriteGuard guard = guard("wg-rev-h", 1);
    CountingLocks locks = new CountingLocks();
    StackOverflowError thrown = new StackOverflowError("thrown in a map (test)");
    CompletableFuture<Integer> answer = guard.<Integer>withLock(locks, "k", BOUND,
        h -> guard.call(() -> 1).map(v -> {
          throw thrown;
        })).toFuture();

    endedWithAndReleased(answer, thrown, locks);
  }

  /** A scheduler that passes everything but what a test overrides to another one. */
  private static class DelegatingScheduler implements Scheduler {
    private final Scheduler delegate;

    DelegatingScheduler(Scheduler delegate) {
      this.delegate = delegate;
    }

    @Override
    public Disposable schedule(Runnable task) {
      return delegate.schedule(task);
    }

    @Override
    public Worker createWorker() {
      return delegate.createWorker();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
