package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Holds the first caller of a document inside its group-commit batch until {@link #release()},
 * so that the callers queued meanwhile ({@link #queue}) form the next batch, in order: the
 * forced interleaving of the group-commit tests. Every wait is bounded (60 s), so a deadlock
 * fails the test instead of hanging the build.
 */
final class HeldBatch {
  private final CountDownLatch release = new CountDownLatch(1);
  private final ExecutorService pool;
  private final VersionedUpdater updater;
  private final Object id;
  private final Future<UpdateOutcome> first;

  /** Starts the first caller, whose {@code mutator} runs once released; returns when it is in. */
  HeldBatch(ExecutorService pool, VersionedUpdater updater, Object id, Mutator mutator)
      throws Exception {
    this.pool = pool;
    this.updater = updater;
    this.id = id;
    CountDownLatch inside = new CountDownLatch(1);
    first = pool.submit(() -> updater.update(id, current -> {
      inside.countDown();
      await(release);
      return mutator.mutate(current);
    }));
    assertThat(inside.await(60, TimeUnit.SECONDS)).isTrue();
  }

  /** Queues {@code mutator} behind the held batch and waits until it is queued. */
  Future<UpdateOutcome> queue(Mutator mutator) {
    return queue(() -> updater.update(id, mutator));
  }

  /** Queues {@code call}, which updates the held document, and waits until it is queued. */
  Future<UpdateOutcome> queue(Callable<UpdateOutcome> call) {
    int before = updater.waiting(id);
    Future<UpdateOutcome> f = pool.submit(call);
    waitUntil(() -> updater.waiting(id) == before + 1);
    return f;
  }

  /** Lets the first caller go on and waits for its answer. */
  void release() throws Exception {
    release.countDown();
    first.get(60, TimeUnit.SECONDS);
  }

  static void await(CountDownLatch latch) {
    try {
      if (!latch.await(60, TimeUnit.SECONDS)) {
        throw new AssertionError("latch not released in 60s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Waits (generously bounded) for a condition another thread makes true. */
  static void waitUntil(BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not reached in 60s");
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }
}
