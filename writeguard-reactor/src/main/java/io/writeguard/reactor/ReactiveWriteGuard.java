package io.writeguard.reactor;

import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.update.LockedUpdater;
import io.writeguard.update.TypedDocumentUpdater;
import io.writeguard.update.TypedUpdater;
import io.writeguard.update.Updater;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * WriteGuard for Reactor: each call returns a {@link Mono} that runs the library's blocking
 * path (group commit, bounded retries, fencing, interrupt-safe releases) on this facade's own
 * bounded {@link BlockingExecutor}, never on the subscribing thread, so a Netty event loop or
 * a {@code parallel()} thread is never blocked.
 *
 * <p>Why not a second implementation over the driver's reactive streams: the batch, retry and
 * lock paths would exist twice, and a bug fixed in one would stay in the other. Concurrent
 * Monos updating one document meet in the blocking updater's group commit exactly as threads
 * do (up to one per executor thread in a batch).
 *
 * <ul>
 *   <li><b>Lazy.</b> Nothing runs until the Mono is subscribed; each subscription is one call.
 *   <li><b>Cancel.</b> A call cancelled before it started never starts; one that started runs
 *       to its end and is never interrupted (its outcome goes to the updater's listeners as
 *       usual), and the subscriber gets nothing. A write is therefore either done and in the
 *       database, or never begun.
 *   <li><b>Full.</b> When every thread is busy and {@code queueCapacity} calls wait, the Mono
 *       fails at once with {@link ReactiveQueueFullException}: nothing started.
 *   <li><b>Where results arrive.</b> On the {@code deliverOn} scheduler (Reactor's
 *       {@code parallel()} by default), so the subscriber's code never occupies a writer
 *       thread.
 *   <li><b>Nested.</b> A facade call subscribed from inside a call's work (work that blocks
 *       on it) runs inline on that thread: queued, it would wait for the thread that waits
 *       for it ({@link BlockingExecutor#submit}).
 *   <li><b>Locks.</b> {@link #withLock} waits for locks on threads of their own
 *       ({@code lockWaiters}), and a cancel once the lock is had never lets the next holder in
 *       before the work ends.
 * </ul>
 *
 * <p>Made by {@link #builder()}; close it to stop its threads. Thread-safe.
 */
public final class ReactiveWriteGuard implements AutoCloseable {
  /** The default thread count. */
  public static final int DEFAULT_THREADS = 16;
  /** The default queue capacity. */
  public static final int DEFAULT_QUEUE_CAPACITY = 1024;
  /** The default count of lock-wait threads. */
  public static final int DEFAULT_LOCK_WAITERS = 16;
  /** The default thread-name prefix. */
  public static final String DEFAULT_NAME = "writeguard-reactive";

  private final BlockingExecutor executor;
  private final BlockingExecutor lockWaits;
  private final Scheduler deliverOn;
  private final Function<Throwable, Throwable> errors;

  private ReactiveWriteGuard(Builder b) {
    if (b.lockWaiters < 1) {
      throw new IllegalArgumentException("lockWaiters must be at least 1, was " + b.lockWaiters);
    }
    this.executor = new BlockingExecutor(b.name, b.threads, b.queueCapacity);
    this.lockWaits = new BlockingExecutor(b.name + "-lock", b.lockWaiters, b.queueCapacity);
    this.deliverOn = b.deliverOn;
    this.errors = b.errors;
  }

  /** A builder with {@value #DEFAULT_THREADS} threads, a queue of 1024, Reactor's parallel(). */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A Mono of {@code work}'s result, run on the executor when subscribed (see the class
   * comment for cancel and a full queue). A null result is an empty Mono.
   */
  public <T> Mono<T> call(Supplier<? extends T> work) {
    return call(work, result -> {});
  }

  /**
   * As {@link #call(Supplier)}; a result produced after the subscriber cancelled (while the
   * work ran, on its way to {@code deliverOn}, or waiting for the subscriber's request) goes to
   * {@code ifCancelled} (a lock handle to release): each result is passed to the subscriber's
   * {@code onNext} or to {@code ifCancelled}, exactly once.
   */
  public <T> Mono<T> call(Supplier<? extends T> work, Consumer<? super T> ifCancelled) {
    Objects.requireNonNull(work, "work");
    Objects.requireNonNull(ifCancelled, "ifCancelled");
    return new CallMono<T>(executor, deliverOn, work, ifCancelled).onErrorMap(errors::apply);
  }

  /**
   * Runs {@code work} under {@code key}'s lock of {@code locks}: waits for the lock (up to
   * {@code wait}) on the lock-wait threads, never on the threads that run calls, subscribes to
   * the Mono {@code work} returns for the handle, and releases the lock when that Mono
   * completes or fails, before the subscriber sees the outcome. The release runs exactly once,
   * on a finishing thread, with the interrupt set aside; a failed release is logged (the lease
   * runs out) and never replaces the outcome.
   *
   * <p>Cancel: while the lock is waited for, the run is abandoned: the work never starts and a
   * lock had anyway is released. Once the lock is had, a cancel only detaches the subscriber:
   * the work's Mono is not cancelled and the lock is held until it ends, so two holders never
   * overlap, even when the work is a facade call that runs to its end by design. A work that
   * never ends keeps the lock until its lease runs out: bound it inside the work.
   *
   * @throws ReactiveQueueFullException (as the Mono's error) when every lock-wait thread waits
   *     and {@code queueCapacity} lock waits are queued; nothing was started
   */
  public <T> Mono<T> withLock(LockService locks, String key, Duration wait,
      Function<? super LockHandle, ? extends Mono<? extends T>> work) {
    Objects.requireNonNull(locks, "locks");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(wait, "wait");
    Objects.requireNonNull(work, "work");
    Mono<T> run = Mono.create(sink -> new LockedRun<T>(sink, executor, deliverOn, work, errors)
        .start(lockWaits, locks, key, wait));
    // The outcome is passed on once the release is done, on a finishing thread: move it to
    // deliverOn, or the subscriber's code would occupy the thread that later releases need.
    return run.publishOn(deliverOn);
  }

  /**
   * Reactive calls of {@code updater}, whichever strategy it is: versioned, locked, adaptive.
   */
  public ReactiveUpdater updater(Updater updater) {
    return new ReactiveUpdater(updater, this);
  }

  /** Reactive calls of {@code updater}, whichever strategy it is. */
  public <T> ReactiveTypedDocumentUpdater<T> typed(TypedDocumentUpdater<T> updater) {
    return new ReactiveTypedDocumentUpdater<>(updater, this);
  }

  /** Reactive calls of {@code updater}, with {@link ReactiveTypedUpdater#insert}. */
  public <T> ReactiveTypedUpdater<T> typed(TypedUpdater<T> updater) {
    return new ReactiveTypedUpdater<>(updater, this);
  }

  /**
   * Reactive calls of {@code updater}.
   *
   * @deprecated use {@link #updater(Updater)}
   */
  @Deprecated
  public ReactiveVersionedUpdater versioned(VersionedUpdater updater) {
    return new ReactiveVersionedUpdater(updater, this);
  }

  /**
   * Reactive calls of {@code updater}.
   *
   * @deprecated use {@link #updater(Updater)}
   */
  @Deprecated
  public ReactiveLockedUpdater locked(LockedUpdater updater) {
    return new ReactiveLockedUpdater(updater, this);
  }

  /** The executor the blocking calls run on. */
  public BlockingExecutor executor() {
    return executor;
  }

  /** The executor lock waits run on, apart from the calls' so a wait never holds a call up. */
  public BlockingExecutor lockWaitExecutor() {
    return lockWaits;
  }

  /**
   * Stops the lock waits, then the executor: see {@link BlockingExecutor#close(Duration)}. A
   * lock wait still queued ends its Mono with {@link IllegalStateException}.
   */
  @Override
  public void close() {
    lockWaits.close();
    executor.close();
  }

  /** Settings of a {@link ReactiveWriteGuard}. */
  public static final class Builder {
    private String name = DEFAULT_NAME;
    private int threads = DEFAULT_THREADS;
    private int queueCapacity = DEFAULT_QUEUE_CAPACITY;
    private int lockWaiters = DEFAULT_LOCK_WAITERS;
    private Scheduler deliverOn = Schedulers.parallel();
    private Function<Throwable, Throwable> errors = UnaryOperator.identity();

    private Builder() {}

    /**
     * Threads running blocking calls; also the most callers of one document one batch of
     * group commit can hold.
     */
    public Builder threads(int threads) {
      this.threads = threads;
      return this;
    }

    /** Calls that may wait when every thread is busy; beyond, {@link ReactiveQueueFullException}. */
    public Builder queueCapacity(int queueCapacity) {
      this.queueCapacity = queueCapacity;
      return this;
    }

    /**
     * Threads that wait for locks in {@link #withLock}, apart from the threads running calls:
     * a waiter blocks its thread for up to its wait, and on the call threads it would hold up
     * the holder's own calls. Beyond them, up to {@code queueCapacity} lock waits queue (a
     * queued wait's clock starts when a thread takes it); past that, withLock fails at once
     * with {@link ReactiveQueueFullException}.
     */
    public Builder lockWaiters(int lockWaiters) {
      this.lockWaiters = lockWaiters;
      return this;
    }

    /** The threads' name prefix ({@code name-N}; lock waits {@code name-lock-N}). */
    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /** Where results and errors are delivered; Reactor's {@code parallel()} by default. */
    public Builder deliverOn(Scheduler deliverOn) {
      this.deliverOn = Objects.requireNonNull(deliverOn, "deliverOn");
      return this;
    }

    /** Maps every error before the subscriber sees it (e.g. to Spring's exceptions). */
    public Builder errors(Function<Throwable, Throwable> errors) {
      this.errors = Objects.requireNonNull(errors, "errors");
      return this;
    }

    /**
     * @throws IllegalArgumentException for threads or lock waiters below 1, a negative queue
     *     capacity, a blank name
     */
    public ReactiveWriteGuard build() {
      return new ReactiveWriteGuard(this);
    }
  }
}
