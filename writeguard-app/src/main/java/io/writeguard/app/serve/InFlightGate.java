package io.writeguard.app.serve;

import io.writeguard.Ticker;
import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Counts requests in progress and lets shutdown wait for them.
 *
 * <p>Why the service keeps its own count instead of relying on Jetty's graceful stop: we must
 * close the lock services and the database client only after the last request that may hold
 * a lock has finished, and we want the order under our control: stop admitting
 * ({@link #close}), wait for the count to reach zero ({@link #awaitIdle}), then stop the HTTP
 * server and release the locks. A request that arrives after {@code close()} is refused with
 * 503 and {@code Retry-After}, so a load balancer sends it to another process.
 *
 * <p>Thread-safe.
 */
final class InFlightGate {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition idle = lock.newCondition();
  private final Ticker ticker;
  private int inFlight;
  private boolean closed;

  InFlightGate(Ticker ticker) {
    this.ticker = ticker;
  }

  /** Admits a request; false once the gate is closed. Every true must be paired with {@link #leave}. */
  boolean enter() {
    lock.lock();
    try {
      if (closed) {
        return false;
      }
      inFlight++;
      return true;
    } finally {
      lock.unlock();
    }
  }

  void leave() {
    lock.lock();
    try {
      if (--inFlight == 0) {
        idle.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Stops admitting requests. */
  void close() {
    lock.lock();
    try {
      closed = true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until no request is in progress or {@code timeout} has passed.
   *
   * @return the number still in progress (0 when all finished)
   */
  int awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = ticker.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (inFlight > 0) {
        long left = deadline - ticker.nanoTime();
        if (left <= 0) {
          break;
        }
        idle.awaitNanos(left);
      }
      return inFlight;
    } finally {
      lock.unlock();
    }
  }

  int inFlight() {
    lock.lock();
    try {
      return inFlight;
    } finally {
      lock.unlock();
    }
  }
}
