package io.writeguard.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the same task on N threads at once, for tests that claim something holds under real
 * concurrency. All threads wait on one start latch, so they collide instead of running one
 * after another as they are created; the wait for them is bounded, so a deadlock fails the test
 * instead of hanging the build. A task's exception is rethrown as it is (the first one, in
 * thread order); the threads are interrupted and gone when {@code run} returns (if one is
 * still alive 10 s after that, the run fails).
 *
 * <pre>{@code
 * Concurrently.run(8, Duration.ofSeconds(60), thread -> {
 *   for (int i = 0; i < 40; i++) { ... }
 * });
 * }</pre>
 *
 * <p>Stateless; each call uses its own threads.
 */
public final class Concurrently {
  private Concurrently() {}

  /** One thread's work; {@code thread} is its index, from 0. */
  @FunctionalInterface
  public interface Task {
    void run(int thread) throws Exception;
  }

  /** Work the calling thread does while the others run. */
  @FunctionalInterface
  public interface Meanwhile {
    void run() throws Exception;
  }

  /** Runs {@code task} on {@code threads} threads at once; waits up to {@code timeout}. */
  public static void run(int threads, Duration timeout, Task task) throws Exception {
    run(threads, timeout, task, () -> {});
  }

  /**
   * Runs {@code task} on {@code threads} threads at once and, once they are released,
   * {@code meanwhile} on the calling thread; then waits for the threads, up to {@code timeout}
   * in all counted from their release.
   *
   * @throws AssertionError if some thread is still running after {@code timeout}
   */
  public static void run(int threads, Duration timeout, Task task, Meanwhile meanwhile)
      throws Exception {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, was " + threads);
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    boolean finished = false;
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>(threads);
      for (int t = 0; t < threads; t++) {
        int thread = t;
        futures.add(pool.submit(() -> {
          start.await();
          task.run(thread);
          return null;
        }));
      }
      long deadline = System.nanoTime() + timeout.toNanos();
      start.countDown();
      meanwhile.run();
      for (int t = 0; t < threads; t++) {
        try {
          futures.get(t).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
          throw new AssertionError("thread " + t + " of " + threads + " still running after "
              + timeout, e);
        } catch (ExecutionException e) {
          throw rethrow(e.getCause());
        }
      }
      finished = true;
    } finally {
      pool.shutdownNow();
      // Checked only when nothing else failed, so it never hides the first failure.
      if (!pool.awaitTermination(10, TimeUnit.SECONDS) && finished) {
        throw new AssertionError("threads still alive 10s after they were interrupted");
      }
    }
  }

  private static Exception rethrow(Throwable cause) {
    if (cause instanceof Error error) {
      throw error;
    }
    return (Exception) cause;
  }
}
