package io.writeguard;

/**
 * A wait (backoff, lock wait, lease renewal) was interrupted. The thread's interrupt flag has
 * been restored before this was thrown, so code further up still sees the interrupt.
 * Immutable and thread-safe.
 */
public class WriteGuardInterruptedException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  public WriteGuardInterruptedException(String whatWasWaiting, InterruptedException cause) {
    super("interrupted while " + whatWasWaiting + " (interrupt flag restored)", cause);
    Thread.currentThread().interrupt();
  }
}
