package io.writeguard.lock;

import io.writeguard.WriteGuardException;
import java.time.Duration;

/** A lock was not acquired within its wait timeout. Immutable and thread-safe. */
public class LockTimeoutException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final String key;
  private final Duration timeout;
  private final int waiters;

  public LockTimeoutException(String backend, String key, Duration timeout, int waiters) {
    super(backend + " lock '" + key + "' not acquired within " + millis(timeout)
        + "ms (" + waiters + " waiting in this process)");
    this.key = key;
    this.timeout = timeout;
    this.waiters = waiters;
  }

  /**
   * The wait in milliseconds for the message, saturated: a wait too long for a {@code long} of
   * milliseconds ({@code ChronoUnit.FOREVER}, which lock services take as "forever") must not
   * turn the timeout into an {@link ArithmeticException}.
   */
  private static long millis(Duration timeout) {
    try {
      return timeout.toMillis();
    } catch (ArithmeticException tooLong) {
      return timeout.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  public String key() {
    return key;
  }

  public Duration timeout() {
    return timeout;
  }

  /** How many callers in this process were waiting for the key when the wait ended. */
  public int waiters() {
    return waiters;
  }
}
