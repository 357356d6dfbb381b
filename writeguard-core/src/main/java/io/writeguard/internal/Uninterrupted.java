package io.writeguard.internal;

import java.util.function.Supplier;

/**
 * Runs a write that must happen even on an interrupted thread: the interrupt flag is set aside
 * for the write and restored after it, whatever the write did. Not API; stateless.
 *
 * <p>Why. The MongoDB driver refuses every call of a thread whose interrupt flag is set (it
 * waits for a connection interruptibly), so a release, a completion, a give-back or a clean-up
 * sent from such a thread never leaves it: a lock stays taken until its lease runs out, a claim
 * stays pending, an amount stays drained. The writes below are bounded by the client's own
 * timeouts, so setting the interrupt aside for one of them delays it, never loses it: the flag
 * is set again when the write returns or throws. An interrupt that arrives during the write
 * stays set too.
 *
 * <p>Only for writes that finish what the thread already did. Work the caller may still decline
 * (a new claim, a wait for a lock) must keep seeing the interrupt.
 */
public final class Uninterrupted {
  private Uninterrupted() {}

  /** Calls {@code write} with the interrupt flag cleared, then restores the flag. */
  public static <T> T call(Supplier<T> write) {
    boolean interrupted = Thread.interrupted();
    try {
      return write.get();
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** {@link #call} for a write without a result. */
  public static void run(Runnable write) {
    call(() -> {
      write.run();
      return null;
    });
  }
}
