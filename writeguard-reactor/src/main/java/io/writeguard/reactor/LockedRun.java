package io.writeguard.reactor;

import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.reactivestreams.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;
import reactor.util.context.Context;

/**
 * One subscription of {@link ReactiveWriteGuard#withLock}: acquire, then the work, then the
 * release, as a run of its own that a downstream cancel cannot cut short.
 *
 * <p>A cancel while the lock is waited for abandons the run: the work never starts, and a lock
 * had anyway is released. A cancel once the lock is had only detaches the subscriber: the
 * work is never cancelled from here (a facade call in it runs to its end regardless), and the
 * lock is released when the work ends. Either way the release runs exactly once.
 */
final class LockedRun<T> {
  private static final Logger log = LoggerFactory.getLogger(LockedRun.class);

  private static final int ACQUIRING = 0;
  private static final int HELD = 1;
  private static final int ABANDONED = 2;

  private final AtomicInteger state = new AtomicInteger(ACQUIRING);
  private final AtomicBoolean released = new AtomicBoolean();
  private final MonoSink<T> sink;
  private final BlockingExecutor releases;
  private final Scheduler startOn;
  private final Function<? super LockHandle, ? extends Mono<? extends T>> work;
  private final Function<Throwable, Throwable> errors;
  private volatile BlockingExecutor.Call acquire;

  LockedRun(MonoSink<T> sink, BlockingExecutor releases, Scheduler startOn,
      Function<? super LockHandle, ? extends Mono<? extends T>> work,
      Function<Throwable, Throwable> errors) {
    this.sink = sink;
    this.releases = releases;
    this.startOn = startOn;
    this.work = work;
    this.errors = errors;
  }

  /** Waits for the lock on {@code lockWaits}, never on the executor the work's calls need. */
  void start(BlockingExecutor lockWaits, LockService locks, String key, Duration wait) {
    sink.onCancel(this::cancel);
    if (state.get() != ACQUIRING) {
      return;
    }
    BlockingExecutor.Call call;
    try {
      call = lockWaits.submit(() -> locks.acquire(key, wait), this::acquired, this::release);
    } catch (ReactiveQueueFullException | IllegalStateException e) {
      if (state.compareAndSet(ACQUIRING, ABANDONED)) {
        sink.error(errors.apply(e));
      }
      return;
    }
    acquire = call;
    if (state.get() == ABANDONED) {
      call.cancel(); // the cancel landed before the call was known
    }
  }

  private void cancel() {
    if (state.compareAndSet(ACQUIRING, ABANDONED)) {
      BlockingExecutor.Call call = acquire;
      if (call != null) {
        call.cancel(); // a handle it still gets goes to release()
      }
    }
    // HELD: nothing to do; the work ends by itself and releases then.
  }

  private void acquired(LockHandle handle, Throwable error) {
    if (error != null) {
      if (state.compareAndSet(ACQUIRING, ABANDONED)) {
        sink.error(errors.apply(error));
      }
      return;
    }
    if (!state.compareAndSet(ACQUIRING, HELD)) {
      release(handle); // cancelled after the acquire returned, before it was delivered
      return;
    }
    // The work (a method building a Mono) starts on startOn, so the lock-wait thread is free.
    try {
      startOn.schedule(() -> startWork(handle));
    } catch (Throwable e) { // refused, or an Error (no thread to be had): release, answer
      end(handle, null, e);
    }
  }

  private void startWork(LockHandle handle) {
    try {
      Mono<? extends T> mono = work.apply(handle);
      if (mono == null) {
        throw new NullPointerException("the locked work returned null instead of a Mono");
      }
      mono.subscribe(new WorkSubscriber(handle));
    } catch (Throwable e) { // an Error or an undeclared checked exception too: release, answer
      end(handle, null, e);
    }
  }

  /** Releases the lock, then passes the outcome on (dropped if the subscriber left). */
  private void end(LockHandle handle, T value, Throwable error) {
    if (!released.compareAndSet(false, true)) {
      return;
    }
    releases.submitFinishing(() -> {
      try {
        closeQuietly(handle);
      } finally {
        if (error != null) {
          sink.error(error);
        } else if (value == null) {
          sink.success();
        } else {
          sink.success(value);
        }
      }
    });
  }

  private void release(LockHandle handle) {
    if (released.compareAndSet(false, true)) {
      releases.submitFinishing(() -> closeQuietly(handle));
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

  /** Subscribes to the work on the run's behalf: the subscriber's cancel never reaches it. */
  private final class WorkSubscriber extends BaseSubscriber<T> {
    private final LockHandle handle;
    private T value;

    WorkSubscriber(LockHandle handle) {
      this.handle = handle;
    }

    @Override
    public Context currentContext() {
      return Context.of(sink.contextView());
    }

    @Override
    protected void hookOnSubscribe(Subscription subscription) {
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    protected void hookOnNext(T next) {
      value = next;
    }

    @Override
    protected void hookOnComplete() {
      end(handle, value, null);
    }

    @Override
    protected void hookOnError(Throwable error) {
      end(handle, null, error);
    }
  }
}
