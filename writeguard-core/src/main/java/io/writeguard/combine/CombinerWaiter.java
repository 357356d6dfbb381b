package io.writeguard.combine;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One caller's request in a {@link KeyedCombiner} and, once answered, its result. Its state
 * goes PENDING (queued) to TAKEN (in a batch) to ANSWERING to DONE, or PENDING to WITHDRAWN;
 * a batch may hand it back, TAKEN to PENDING. Thread-safe through {@link #state}: the plain
 * fields are written before the state change that publishes them.
 */
final class CombinerWaiter<T, R> {
  static final int PENDING = 0;
  static final int TAKEN = 1;
  static final int ANSWERING = 2;
  static final int DONE = 3;
  static final int WITHDRAWN = 4;

  final T request;
  final Thread thread;
  final long since;
  final AtomicInteger state = new AtomicInteger(PENDING);
  int attemptsMade; // by batches that handed it back
  boolean handedBack; // both written before the state goes back to PENDING, read after
  private R result; // written before state becomes DONE, read after
  private Throwable error;

  CombinerWaiter(T request, Thread thread, long since) {
    this.request = request;
    this.thread = thread;
    this.since = since;
  }

  /** Answers it, once: false if it was not taken (answered, withdrawn or handed back). */
  boolean answer(R result, Throwable error) {
    if (!state.compareAndSet(TAKEN, ANSWERING)) {
      return false;
    }
    this.result = result;
    this.error = error;
    state.set(DONE);
    if (thread != Thread.currentThread()) {
      LockSupport.unpark(thread);
    }
    return true;
  }

  /** The answer: the result, or the error thrown (as it was thrown, a checked one too). */
  R answer() {
    if (error != null) {
      throw CombinerWaiter.<RuntimeException>unchanged(error);
    }
    return result;
  }

  /** Throws {@code error} as it is: a checked one a request's own work threw undeclared too. */
  @SuppressWarnings("unchecked")
  private static <E extends Throwable> E unchanged(Throwable error) throws E {
    throw (E) error;
  }
}
