package io.writeguard.reactor;

import io.writeguard.internal.Uninterrupted;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bounded pool of named daemon threads on which the reactive facade runs WriteGuard's
 * blocking calls. Reactor-free, so the same lane serves {@code CompletionStage} code.
 *
 * <p><b>Bounded.</b> At most {@code threads} calls run and {@code queueCapacity} wait; a call
 * beyond that is refused at once with {@link ReactiveQueueFullException}, nothing started.
 * Finishing work ({@link #submitFinishing}, a lock release) is never refused: it ends what an
 * admitted call began. It runs on threads of its own ({@code name-finish-N}): were it queued
 * behind calls that wait for a lock, the release those calls wait for would never run.
 *
 * <p><b>Never blocks its caller.</b> Submitting is a counter update and an offer to a lock-free
 * queue ({@link LinkedTransferQueue}) to threads started up front, so a submission from an
 * event-loop thread takes no lock and never parks.
 *
 * <p><b>Cancel never interrupts.</b> {@link Call#cancel()} withdraws a call that has not
 * started (it never will); a call that has started runs to its end, its result is not
 * delivered, and a result that holds something (a lock handle) goes to the call's
 * {@code ifCancelled} action. So a cancelled write either never started or completed as it
 * would have without the cancel; it is never cut off half-way. Thread-safe.
 */
public final class BlockingExecutor implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BlockingExecutor.class);

  private final String name;
  private final int threads;
  private final int queueCapacity;
  private final LinkedTransferQueue<Runnable> queue = new LinkedTransferQueue<>();
  private final ThreadPoolExecutor pool;
  private final ThreadPoolExecutor finishing;
  private final AtomicInteger admitted = new AtomicInteger(); // running + queued, bounded
  /** The executor whose call the current thread runs, if any (see {@link #submit}). */
  private static final ThreadLocal<BlockingExecutor> RUNNING_ON = new ThreadLocal<>();

  /**
   * Starts {@code threads} daemon threads named {@code name-1}, {@code name-2}...
   *
   * @throws IllegalArgumentException if {@code threads < 1}, {@code queueCapacity < 0} or the
   *     name is blank
   */
  public BlockingExecutor(String name, int threads, int queueCapacity) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("executor name must not be blank, was "
          + (name == null ? "null" : "'" + name + "'"));
    }
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, was " + threads);
    }
    if (queueCapacity < 0) {
      throw new IllegalArgumentException("queueCapacity must not be negative, was "
          + queueCapacity);
    }
    this.name = name;
    this.threads = threads;
    this.queueCapacity = queueCapacity;
    this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, queue,
        threadFactory(name));
    // Every worker exists before the first submission: execute() then never takes the pool's
    // lock to add one.
    pool.prestartAllCoreThreads();
    int finishers = Math.max(1, Math.min(4, threads / 4));
    this.finishing = new ThreadPoolExecutor(finishers, finishers, 0, TimeUnit.MILLISECONDS,
        new LinkedTransferQueue<>(), threadFactory(name + "-finish"));
    finishing.prestartAllCoreThreads();
  }

  private static ThreadFactory threadFactory(String name) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** A submitted call: cancel it to withdraw it if it has not started. */
  public interface Call {
    /**
     * Withdraws the call if it has not started; if it has, lets it finish and drops its result
     * (handing it to the call's {@code ifCancelled} action). Never interrupts. Idempotent.
     */
    void cancel();
  }

  /**
   * Runs {@code work} on one of the threads, then {@code done} with its result or its
   * exception (on that thread, whatever it threw, a checked exception too), unless the call
   * was cancelled first.
   *
   * <p>A call submitted from inside a call of this executor (work that blocks on another
   * facade call) runs at once on the calling thread, as the blocking code would run it: queued,
   * it could wait for the very thread that waits for it, and with every thread in such work the
   * pool would deadlock. It takes no place in the queue and is never refused.
   *
   * @param ifCancelled receives a non-null result produced after a cancel (to release it)
   * @throws ReactiveQueueFullException if every thread is busy and the queue is full
   * @throws IllegalStateException if the executor is closed
   */
  public <T> Call submit(Supplier<? extends T> work, BiConsumer<? super T, Throwable> done,
      Consumer<? super T> ifCancelled) {
    Objects.requireNonNull(work, "work");
    Objects.requireNonNull(done, "done");
    Objects.requireNonNull(ifCancelled, "ifCancelled");
    if (RUNNING_ON.get() == this) {
      Task<T> nested = new Task<>(work, done, ifCancelled);
      nested.runInline();
      return nested;
    }
    if (admitted.incrementAndGet() > threads + queueCapacity) {
      admitted.decrementAndGet();
      throw new ReactiveQueueFullException(name, threads, queueCapacity);
    }
    Task<T> task = new Task<>(work, done, ifCancelled);
    try {
      pool.execute(task);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      admitted.decrementAndGet();
      throw new IllegalStateException("executor '" + name + "' is closed", e);
    }
    return task;
  }

  /**
   * Runs {@code work} (a lock release, work that ends what an admitted call began) on one
   * of the threads, even when the queue is full, with the interrupt flag set aside
   * ({@link Uninterrupted}). After {@link #close()} it runs on the calling thread instead: it is
   * never dropped. Its exception is logged.
   */
  public void submitFinishing(Runnable work) {
    Objects.requireNonNull(work, "work");
    Runnable guarded = () -> {
      try {
        Uninterrupted.run(work);
      } catch (RuntimeException e) {
        log.warn("{}: finishing work failed: {}", name, e.toString());
      }
    };
    if (finishing.isShutdown()) {
      guarded.run();
      return;
    }
    try {
      finishing.execute(guarded);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      guarded.run(); // closed meanwhile
    }
  }

  /** The thread-name prefix. */
  public String name() {
    return name;
  }

  /** How many threads run calls. */
  public int threads() {
    return threads;
  }

  /** How many calls may wait when every thread is busy. */
  public int queueCapacity() {
    return queueCapacity;
  }

  /** Calls admitted and not finished (running or queued). */
  public int admitted() {
    return admitted.get();
  }

  /**
   * Stops taking calls, lets the running and queued ones finish for up to {@code grace}, then
   * interrupts what is left (WriteGuard's must-happen writes set the interrupt aside).
   */
  public void close(Duration grace) {
    pool.shutdown();
    try {
      if (!pool.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("{}: calls still running {} after close; interrupting them", name, grace);
        abandon(pool.shutdownNow());
      }
    } catch (InterruptedException e) {
      abandon(pool.shutdownNow());
      Thread.currentThread().interrupt();
    }
    // Releases asked for by the calls above are queued by now; they run before the threads
    // stop (shutdown lets queued work finish), and any asked for later run on the caller.
    finishing.shutdown();
    try {
      finishing.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Calls that never started, dropped by shutdownNow: their callers are told, never left waiting. */
  private void abandon(java.util.List<Runnable> dropped) {
    for (Runnable runnable : dropped) {
      if (runnable instanceof Task<?> task) {
        task.abandon();
      }
    }
  }

  /** {@link #close(Duration)} with 10 seconds of grace. */
  @Override
  public void close() {
    close(Duration.ofSeconds(10));
  }

  private final class Task<T> implements Runnable, Call {
    private static final int QUEUED = 0;
    private static final int RUNNING = 1;
    private static final int CANCELLED = 2;
    private static final int DONE = 3;

    private final AtomicInteger state = new AtomicInteger(QUEUED);
    private final Supplier<? extends T> work;
    private final BiConsumer<? super T, Throwable> done;
    private final Consumer<? super T> ifCancelled;

    Task(Supplier<? extends T> work, BiConsumer<? super T, Throwable> done,
        Consumer<? super T> ifCancelled) {
      this.work = work;
      this.done = done;
      this.ifCancelled = ifCancelled;
    }

    @Override
    public void run() {
      if (!state.compareAndSet(QUEUED, RUNNING)) {
        return; // withdrawn before it started: it never will
      }
      T result = null;
      Throwable error = null;
      try {
        runStarted();
      } finally {
        admitted.decrementAndGet();
      }
    }

    /**
     * Submitted from inside a call's work on this executor: runs now, on the calling thread.
     * Queued, it could wait for the very thread that waits for it.
     */
    void runInline() {
      state.set(RUNNING);
      runStarted();
    }

    private void runStarted() {
      BlockingExecutor outer = RUNNING_ON.get();
      RUNNING_ON.set(BlockingExecutor.this);
      try {
        finish();
      } finally {
        RUNNING_ON.set(outer);
      }
    }

    private void finish() {
      T result = null;
      Throwable error = null;
      try {
        result = work.get();
      } catch (Throwable e) { // an undeclared checked exception too ends the call with it
        error = e;
      }
      if (state.compareAndSet(RUNNING, DONE)) {
        try {
          done.accept(result, error);
        } catch (Throwable e) {
          log.warn("{}: delivering a result failed: {}", name, e.toString());
        }
      } else if (result != null) {
        try {
          ifCancelled.accept(result);
        } catch (Throwable e) {
          log.warn("{}: releasing a cancelled call's result failed: {}", name, e.toString());
        }
      }
    }

    /** Dropped by close before it started: it never will, and its caller is told so. */
    void abandon() {
      if (state.compareAndSet(QUEUED, DONE)) {
        admitted.decrementAndGet();
        try {
          done.accept(null, new IllegalStateException("executor '" + name
              + "' was closed before this call started; nothing was started"));
        } catch (RuntimeException e) {
          log.warn("{}: delivering a result failed: {}", name, e.toString());
        }
      }
    }

    @Override
    public void cancel() {
      if (state.compareAndSet(QUEUED, CANCELLED)) {
        admitted.decrementAndGet();
        queue.remove(this); // lock-free; the slot is free for the next call
      } else {
        state.compareAndSet(RUNNING, CANCELLED);
      }
    }
  }
}
