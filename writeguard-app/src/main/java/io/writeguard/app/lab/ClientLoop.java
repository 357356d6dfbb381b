package io.writeguard.app.lab;

import com.mongodb.MongoException;
import com.mongodb.MongoSocketException;
import com.mongodb.MongoTimeoutException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.writeguard.Ticker;
import io.writeguard.app.lab.api.Scenario.ClientWorkload;
import io.writeguard.app.lab.api.Strategy;
import io.writeguard.deadline.Deadlines;
import io.writeguard.internal.Backoff;
import io.writeguard.lock.LockBackendException;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * One client: waits for the start gate, then sends operations until the run says stop,
 * timing each acknowledged one. After a backend error (a MongoDB, Redis or lock-server
 * failure that does not end the run) it backs off before its next operation, full jitter from
 * 1 ms doubling to 100 ms while the errors go on, so a failing backend is not hammered with
 * tens of thousands of operations a second; a success resets the backoff; a backend that
 * stopped answering ({@link ServerGone}) ends the run instead. Runs on its own thread; its
 * counters are read by the runner only after the thread ended, except {@link #completed()},
 * which is published for the runner's stall watch.
 */
final class ClientLoop<O> implements Runnable {
  private final ClientWorkload<O> workload;
  private final Strategy<O> strategy;
  private final Ticker ticker;
  private final RunControl control;
  private final CountDownLatch gate;
  private final long quota;
  /** Microseconds, 3 significant digits, grows as needed. */
  private final Histogram latencyMicros = new Histogram(3);
  private long acknowledged;
  private long errors;
  private String errorSample;
  private volatile long completed;
  private static final Backoff BACKEND_BACKOFF =
      Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(100));
  private final SplittableRandom jitter = new SplittableRandom();
  /** Every operation's deadline: serve's default request deadline (docs/lab.md). */
  static final Duration OPERATION_DEADLINE = Duration.ofSeconds(10);
  private int backendErrorsInARow;

  ClientLoop(ClientWorkload<O> workload, Strategy<O> strategy, Ticker ticker,
      RunControl control, CountDownLatch gate, long quota) {
    this.workload = workload;
    this.strategy = strategy;
    this.ticker = ticker;
    this.control = control;
    this.gate = gate;
    this.quota = quota;
  }

  @Override
  public void run() {
    try {
      gate.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    try {
      loop();
    } catch (Error e) {
      control.fail(e); // a client that died must not leave a run that looks complete
      throw e;
    }
  }

  private void loop() {
    long done = 0;
    while (control.goOn(ticker.nanoTime(), quota - done)) {
      O op;
      try {
        op = workload.next();
      } catch (RuntimeException e) {
        control.fail(e); // the scenario itself could not go on (e.g. creating documents)
        return;
      }
      long start = ticker.nanoTime();
      try {
        // Each operation under serve's request deadline, as a request handler would run it.
        Deadlines.within(OPERATION_DEADLINE, () -> strategy.apply(op));
        long micros = TimeUnit.NANOSECONDS.toMicros(ticker.nanoTime() - start);
        latencyMicros.recordValue(Math.max(1, micros));
        workload.acknowledged(op);
        acknowledged++;
        backendErrorsInARow = 0;
      } catch (RuntimeException e) {
        if (ServerGone.is(e)) {
          control.fail(e);
          return;
        }
        errors++;
        if (errorSample == null) {
          errorSample = e.toString();
        }
        if (isBackendError(e) && !backOff()) {
          return;
        }
      }
      done++;
      completed = done;
      if (Thread.currentThread().isInterrupted()) {
        return;
      }
    }
  }

  private static boolean isBackendError(Throwable error) {
    int depth = 0;
    for (Throwable t = error; t != null && depth < 32;
        t = t.getCause() == t ? null : t.getCause(), depth++) {
      if (t instanceof MongoException || t instanceof RedisException
          || t instanceof LockBackendException) {
        return true;
      }
    }
    return false;
  }

  /** Sleeps the next backoff; false when interrupted (the interrupt is kept). */
  private boolean backOff() {
    backendErrorsInARow++;
    long nanos = BACKEND_BACKOFF.fullJitterNanos(backendErrorsInARow, jitter);
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  ClientWorkload<O> workload() {
    return workload;
  }

  Histogram latencyMicros() {
    return latencyMicros;
  }

  long acknowledged() {
    return acknowledged;
  }

  long errors() {
    return errors;
  }

  String errorSample() {
    return errorSample;
  }

  long completed() {
    return completed;
  }

  /**
   * Tells a failure that means "a backend is not answering" from one that concerns a single
   * operation. The first kind ends the run, the same way whether it happens while a strategy is
   * set up or while it is measured (exit 3, no result): going on would only time every remaining
   * operation out, and would make a result out of an outage.
   *
   * <ul>
   *   <li>MongoDB: a driver connectivity failure ({@code MongoSocketException}, read timeouts of a
   *       stalled server included, or {@code MongoTimeoutException});
   *   <li>Redis: a Lettuce {@code RedisException} other than an error the server answered with
   *       ({@code RedisCommandExecutionException}): not connected, connection lost, command
   *       timed out.
   * </ul>
   */
  static final class ServerGone {
    private ServerGone() {}

    /** True when {@code error} or one of its causes is a backend connectivity failure. */
    static boolean is(Throwable error) {
      return describe(error) != null;
    }

    /** "MongoDB stopped answering", "Redis stopped answering", or null for another failure. */
    static String describe(Throwable error) {
      int depth = 0;
      for (Throwable t = error; t != null && depth < 32;
          t = t.getCause() == t ? null : t.getCause(), depth++) {
        if (t instanceof MongoSocketException || t instanceof MongoTimeoutException) {
          return "MongoDB stopped answering";
        }
        if (t instanceof RedisException && !(t instanceof RedisCommandExecutionException)) {
          return "Redis stopped answering";
        }
      }
      return null;
    }
  }
}
