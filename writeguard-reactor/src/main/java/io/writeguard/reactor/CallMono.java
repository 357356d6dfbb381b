package io.writeguard.reactor;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Scheduler;

/**
 * The Mono of {@link ReactiveWriteGuard#call(Supplier, Consumer)}: each subscription submits
 * the work to the executor and passes its outcome on on {@code deliverOn}.
 *
 * <p>Why not {@code Mono.create(...).publishOn(deliverOn)}: a result can then be dropped after
 * a cancel without anyone hearing of it: {@code publishOn} drops a value waiting for its
 * thread, and the sink, cancelled between its two steps, drops one as "next dropped", which no
 * discard hook sees. A lock handle dropped so is never released. Here one state decides, by
 * one compare-and-set, whether a result goes to the subscriber or to {@code ifCancelled}, so
 * it goes to exactly one of them, once.
 */
final class CallMono<T> extends Mono<T> {
  private static final Logger log = LoggerFactory.getLogger(CallMono.class);

  private final BlockingExecutor executor;
  private final Scheduler deliverOn;
  private final Supplier<? extends T> work;
  private final Consumer<? super T> ifCancelled;

  CallMono(BlockingExecutor executor, Scheduler deliverOn, Supplier<? extends T> work,
      Consumer<? super T> ifCancelled) {
    this.executor = executor;
    this.deliverOn = deliverOn;
    this.work = work;
    this.ifCancelled = ifCancelled;
  }

  @Override
  public void subscribe(CoreSubscriber<? super T> actual) {
    Subscription<T> subscription = new Subscription<>(actual, ifCancelled);
    actual.onSubscribe(subscription);
    subscription.start(executor, deliverOn, work);
  }

  /** One subscription: its state, its call, its result. */
  private static final class Subscription<T> implements org.reactivestreams.Subscription {
    private static final int NOTHING = 0; // no request, no outcome
    private static final int REQUESTED = 1; // requested, no outcome yet
    private static final int HAS_RESULT = 2; // a result waits for the request
    private static final int DONE = 3; // the outcome was passed on
    private static final int CANCELLED = 4;

    private final AtomicInteger state = new AtomicInteger(NOTHING);
    private final AtomicBoolean handedBack = new AtomicBoolean();
    private final CoreSubscriber<? super T> actual;
    private final Consumer<? super T> ifCancelled;
    private volatile BlockingExecutor.Call call;
    private T result; // written before HAS_RESULT, read after

    Subscription(CoreSubscriber<? super T> actual, Consumer<? super T> ifCancelled) {
      this.actual = actual;
      this.ifCancelled = ifCancelled;
    }

    void start(BlockingExecutor executor, Scheduler deliverOn, Supplier<? extends T> work) {
      if (state.get() == CANCELLED) {
        return; // cancelled in onSubscribe: never started
      }
      BlockingExecutor.Call submitted;
      try {
        submitted = executor.submit(work, (T value, Throwable error) ->
            deliver(deliverOn, value, error), this::handBack);
      } catch (ReactiveQueueFullException | IllegalStateException e) {
        deliver(deliverOn, null, e);
        return;
      }
      call = submitted;
      if (state.get() == CANCELLED) {
        submitted.cancel(); // the cancel landed before the call was known
      }
    }

    /** Moves the outcome to {@code deliverOn}: the subscriber's code never runs on a writer. */
    private void deliver(Scheduler deliverOn, T value, Throwable error) {
      try {
        deliverOn.schedule(() -> pass(value, error));
      } catch (Throwable e) { // disposed, or an Error (no thread to be had): nowhere to go
        // Passed on here instead: the caller thrown out by the scheduler is the executor's,
        // which would only log it, leaving the subscriber unanswered and a handle held.
        handBack(value);
        if (error != null && error != e) {
          e.addSuppressed(error);
        }
        pass(null, e);
      }
    }

    private void pass(T value, Throwable error) {
      if (error != null || value == null) {
        if (!endOnce()) {
          return; // cancelled: nothing to pass on
        }
        if (error != null) {
          actual.onError(error);
        } else {
          actual.onComplete();
        }
        return;
      }
      result = value;
      while (true) {
        int s = state.get();
        if (s == NOTHING && state.compareAndSet(NOTHING, HAS_RESULT)) {
          return; // the request passes it on
        }
        if (s == REQUESTED && state.compareAndSet(REQUESTED, DONE)) {
          emit(value);
          return;
        }
        if (s == CANCELLED || s == DONE) {
          handBack(value);
          return;
        }
      }
    }

    /** Takes the end for an error or an empty outcome; false when cancelled first. */
    private boolean endOnce() {
      while (true) {
        int s = state.get();
        if (s == CANCELLED || s == DONE) {
          return false;
        }
        if (state.compareAndSet(s, DONE)) {
          return true;
        }
      }
    }

    private void emit(T value) {
      result = null;
      try {
        actual.onNext(value);
      } catch (Throwable e) {
        // Reactor's operators throw a JVM-fatal error (a StackOverflowError in a map) out of
        // onNext instead of signalling it; left there, the chain never ends and a withLock
        // around it never releases. Ended with it instead (an operator that already ended
        // drops it).
        actual.onError(e);
        return;
      }
      actual.onComplete();
    }

    @Override
    public void request(long n) {
      if (!Operators.validate(n)) {
        return;
      }
      while (true) {
        int s = state.get();
        if (s == NOTHING && state.compareAndSet(NOTHING, REQUESTED)) {
          return;
        }
        if (s == HAS_RESULT && state.compareAndSet(HAS_RESULT, DONE)) {
          emit(result);
          return;
        }
        if (s != NOTHING && s != HAS_RESULT) {
          return;
        }
      }
    }

    @Override
    public void cancel() {
      while (true) {
        int s = state.get();
        if (s == DONE || s == CANCELLED) {
          return;
        }
        if (state.compareAndSet(s, CANCELLED)) {
          if (s == HAS_RESULT) {
            T kept = result;
            result = null;
            handBack(kept);
          } else {
            BlockingExecutor.Call submitted = call;
            if (submitted != null) {
              submitted.cancel(); // a result it still produces comes back through handBack
            }
          }
          return;
        }
      }
    }

    /**
     * A result nobody will get goes to {@code ifCancelled}, once. What it throws is logged:
     * it may run inside {@link #cancel()}, which must return normally (Reactive Streams 3.15).
     */
    private void handBack(T value) {
      if (value != null && handedBack.compareAndSet(false, true)) {
        try {
          ifCancelled.accept(value);
        } catch (Throwable e) {
          log.warn("releasing a cancelled call's result failed: {}", e.toString());
        }
      }
    }
  }
}
