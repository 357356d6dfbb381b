package io.writeguard.lock;

import io.writeguard.Ticker;
import io.writeguard.testing.FakeTime;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A ticker that can stop one chosen thread inside a clock read, so a test can put that thread
 * exactly between "read the clock" and "act on it" and let another thread run in that gap.
 * Used to replay the hand-off-versus-timeout race and the hand-out-versus-lost-lease race
 * deterministically. Fake time by default ({@link #advance}); {@link #overSystemTime()} reads
 * the system clock instead, for tests whose other waits must pass on their own. Thread-safe.
 */
public final class GateTicker implements Ticker {
  private final FakeTime time;
  private volatile Thread gated;
  private volatile String insideMethod;
  private volatile CountDownLatch reached = new CountDownLatch(1);
  private volatile CountDownLatch open = new CountDownLatch(1);

  public GateTicker() {
    this(new FakeTime());
  }

  private GateTicker(FakeTime time) {
    this.time = time;
  }

  /** A gate over {@link System#nanoTime()}; {@link #advance} must not be used. */
  public static GateTicker overSystemTime() {
    return new GateTicker(null);
  }

  @Override
  public long nanoTime() {
    if (Thread.currentThread() == gated && calledFromGatedMethod()) {
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
    return time == null ? System.nanoTime() : time.ticker().nanoTime();
  }

  private boolean calledFromGatedMethod() {
    String method = insideMethod;
    return method == null
        || StackWalker.getInstance().walk(frames -> frames.anyMatch(f -> f.getMethodName().equals(method)));
  }

  void advance(Duration duration) {
    time.advance(duration);
  }

  /** Stops {@code thread} in its next clock read; returns once it is stopped there. */
  void stopInNextRead(Thread thread) throws InterruptedException {
    insideMethod = null;
    reached = new CountDownLatch(1);
    open = new CountDownLatch(1);
    gated = thread;
    LockSupport.unpark(thread); // a parked waiter re-reads the clock
    awaitStopped();
  }

  /**
   * Arms the gate: {@code thread} stops in its next clock read made from inside a method named
   * {@code method} (anywhere on its stack). Returns at once; see {@link #awaitStopped()}.
   */
  public void stopInReadFrom(Thread thread, String method) {
    reached = new CountDownLatch(1);
    open = new CountDownLatch(1);
    insideMethod = method;
    gated = thread;
  }

  /** Returns once the armed thread is stopped in the gate. */
  public void awaitStopped() throws InterruptedException {
    if (!reached.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("thread never read the clock");
    }
  }

  /** Lets the stopped thread return from its clock read. */
  public void open() {
    open.countDown();
  }
}
