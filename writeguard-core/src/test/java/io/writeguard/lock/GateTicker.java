package io.writeguard.lock;

import io.writeguard.Ticker;
import io.writeguard.testing.FakeTime;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A fake ticker that can stop one chosen thread inside its next clock read, so a test can put
 * that thread exactly between "read the clock" and "act on it" and let another thread run in
 * that gap. Used to replay the hand-off-versus-timeout race deterministically.
 */
final class GateTicker implements Ticker {
  private final FakeTime time = new FakeTime();
  private volatile Thread gated;
  private volatile CountDownLatch reached = new CountDownLatch(1);
  private volatile CountDownLatch open = new CountDownLatch(1);

  @Override
  public long nanoTime() {
    if (Thread.currentThread() == gated) {
      gated = null;
      reached.countDown();
      boolean interrupted = false;
      while (open.getCount() > 0) {
        try {
          open.await();
        } catch (InterruptedException e) {
          interrupted = true; // the test interrupts the stopped thread on purpose: wait on
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt(); // and hand the flag to the code under test
      }
    }
    return time.ticker().nanoTime();
  }

  void advance(Duration duration) {
    time.advance(duration);
  }

  /** Stops {@code thread} in its next clock read; returns once it is stopped there. */
  void stopInNextRead(Thread thread) throws InterruptedException {
    reached = new CountDownLatch(1);
    open = new CountDownLatch(1);
    gated = thread;
    LockSupport.unpark(thread); // a parked waiter re-reads the clock
    if (!reached.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("thread never read the clock");
    }
  }

  /** Lets the stopped thread return from its clock read. */
  void open() {
    open.countDown();
  }
}
