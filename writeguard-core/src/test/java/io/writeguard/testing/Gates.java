package io.writeguard.testing;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A test's gates: latches a thread waits on inside code under test, always bounded. */
public final class Gates {
  private static final long BOUND_SECONDS = 30;

  private Gates() {}

  /**
   * Waits for {@code gate} to open, at most {@value #BOUND_SECONDS} s; fails the test if it
   * does not. Usable inside a lambda (no checked exception): an interrupt is kept and fails too.
   */
  public static void await(CountDownLatch gate) {
    try {
      if (!gate.await(BOUND_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError("the test's gate never opened");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
