package io.writeguard.reactor;

import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.update.LockedUpdater;
import io.writeguard.update.TypedUpdater;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
 * </ul>
 *
 * <p>Made by {@link #builder()}; close it to stop its threads. Thread-safe.
 */
public final class ReactiveWriteGuard implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReactiveWriteGuard.class);

  /** The default thread count. */
  public static final int DEFAULT_THREADS = 16;
  /** The default queue capacity. */
  public static final int DEFAULT_QUEUE_CAPACITY = 1024;
  /** The default thread-name prefix. */
  public static final String DEFAULT_NAME = "writeguard-reactive";

  private final BlockingExecutor executor;
  private final Scheduler deliverOn;
  private final Function<Throwable, Throwable> errors;

  private ReactiveWriteGuard(Builder b) {
    this.executor = new BlockingExecutor(b.name, b.threads, b.queueCapacity);
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
   * As {@link #call(Supplier)}; a result produced after the subscriber cancelled, or dropped by
   * Reactor after a cancel, goes to {@code ifCancelled} (a lock handle to release), at most once.
   */
  public <T> Mono<T> call(Supplier<? extends T> work, Consumer<? super T> ifCancelled) {
    Objects.requireNonNull(work, "work");
    Objects.requireNonNull(ifCancelled, "ifCancelled");
    Mono<T> started = Mono.create(sink -> {
      // The cancel hook is in place before the call is submitted, so a cancel that lands
      // between the two still withdraws it.
      AtomicReference<BlockingExecutor.Call> submitted = new AtomicReference<>();
      AtomicBoolean cancelled = new AtomicBoolean();
      sink.onCancel(() -> {
        cancelled.set(true);
        BlockingExecutor.Call call = submitted.get();
        if (call != null) {
          call.cancel();
        }
      });
      if (cancelled.get()) {
        return;
      }
      BlockingExecutor.Call call;
      try {
        call = executor.submit(work, (T result, Throwable error) -> {
          if (error != null) {
            sink.error(error);
          } else if (result == null) {
            sink.success();
          } else {
            sink.success(result);
          }
        }, ifCancelled);
      } catch (ReactiveQueueFullException | IllegalStateException e) {
        sink.error(e);
        return;
      }
      submitted.set(call);
      if (cancelled.get()) {
        call.cancel();
      }
    });
    return started.publishOn(deliverOn).onErrorMap(errors::apply);
  }

  /**
   * Runs {@code work} under {@code key}'s lock of {@code locks}: acquires on the executor
   * (waiting up to {@code wait}), subscribes to the Mono {@code work} returns for the handle,
   * and releases when it completes, fails or is cancelled, before the subscriber sees the
   * outcome. The release runs exactly once, on the executor, with the interrupt set aside; a
   * failed release is logged (the lease runs out) and never replaces the outcome. A cancel
   * during the acquire releases the lock as soon as it is had.
   */
  public <T> Mono<T> withLock(LockService locks, String key, Duration wait,
      Function<? super LockHandle, ? extends Mono<? extends T>> work) {
    Objects.requireNonNull(locks, "locks");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(wait, "wait");
    Objects.requireNonNull(work, "work");
    return Mono.usingWhen(
        call(() -> new Held(locks.acquire(key, wait)), this::releaseNow)
            .doOnDiscard(Held.class, this::releaseNow),
        held -> work.apply(held.handle),
        this::release,
        (held, error) -> release(held),
        this::release)
        // The outcome is passed on once the release is done, on a finishing thread: move it
        // to deliverOn, or the subscriber's code would occupy the thread that later releases
        // need (a subscriber waiting there for another locked Mono would wait forever).
        .publishOn(deliverOn);
  }

  /** A lock handle and whether it was released, so every path releases it once. */
  private static final class Held {
    final LockHandle handle;
    final AtomicBoolean released = new AtomicBoolean();

    Held(LockHandle handle) {
      this.handle = handle;
    }
  }

  private Mono<Void> release(Held held) {
    return Mono.create(sink -> {
      if (!held.released.compareAndSet(false, true)) {
        sink.success();
        return;
      }
      // Not cancellable: a release that was asked for is sent.
      executor.submitFinishing(() -> {
        try {
          closeQuietly(held.handle);
        } finally {
          sink.success();
        }
      });
    });
  }

  private void releaseNow(Held held) {
    if (held.released.compareAndSet(false, true)) {
      executor.submitFinishing(() -> closeQuietly(held.handle));
    }
  }

  private static void closeQuietly(LockHandle handle) {
    try {
      handle.close();
    } catch (RuntimeException e) {
      log.warn("releasing lock '{}' (token {}) failed; its lease will expire: {}",
          handle.key(), handle.token(), e.toString());
    }
  }

  /** Reactive calls of {@code updater}. */
  public ReactiveVersionedUpdater versioned(VersionedUpdater updater) {
    return new ReactiveVersionedUpdater(updater, this);
  }

  /** Reactive calls of {@code updater}. */
  public ReactiveLockedUpdater locked(LockedUpdater updater) {
    return new ReactiveLockedUpdater(updater, this);
  }

  /** Reactive calls of {@code updater}. */
  public <T> ReactiveTypedUpdater<T> typed(TypedUpdater<T> updater) {
    return new ReactiveTypedUpdater<>(updater, this);
  }

  /** The executor the blocking calls run on. */
  public BlockingExecutor executor() {
    return executor;
  }

  /** Stops the executor: see {@link BlockingExecutor#close(Duration)}. */
  @Override
  public void close() {
    executor.close();
  }

  /** Settings of a {@link ReactiveWriteGuard}. */
  public static final class Builder {
    private String name = DEFAULT_NAME;
    private int threads = DEFAULT_THREADS;
    private int queueCapacity = DEFAULT_QUEUE_CAPACITY;
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

    /** The threads' name prefix. */
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
     * @throws IllegalArgumentException for threads below 1, a negative queue capacity, a
     *     blank name
     */
    public ReactiveWriteGuard build() {
      return new ReactiveWriteGuard(this);
    }
  }
}
