package io.writeguard.internal;

import java.time.Duration;

/**
 * Argument checks shared by every lock service (in-process, Mongo, Redis), so each backend
 * rejects the same keys and timeouts with the same messages naming the bad value. Not API.
 */
public final class LockArguments {
  /** Longest key shown in an error message; longer ones are cut so the log stays readable. */
  private static final int SHOWN_KEY_CHARS = 64;
  /** The shortest wait a lock service takes. */
  private static final Duration ONE_TRY = Duration.ofNanos(1);

  private LockArguments() {}

  public static String checkKey(String name, String key, int maxLength) {
    Checks.notBlank(name, key);
    if (key.length() > maxLength) {
      throw new IllegalArgumentException(name + " is " + key.length() + " chars, more than maxKeyLength "
          + maxLength + ": " + Checks.quote(shorten(key)));
    }
    return key;
  }

  /** The timeout in nanoseconds; durations too long for a {@code long} wait "forever". */
  public static long checkTimeoutNanos(Duration waitTimeout) {
    Checks.positive("waitTimeout", waitTimeout);
    try {
      return waitTimeout.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE;
    }
  }

  /**
   * The wait a lock service gives a caller who asked for {@code requested}: cut to the calling
   * thread's {@link Deadline} if that comes first (a lock wait and the work under the lock
   * share the caller's budget), and never less than one try at the key.
   *
   * @throws IllegalArgumentException if {@code requested} is not positive: the caller's own
   *     value is checked before any cut
   */
  public static Duration waitFor(Duration requested) {
    checkTimeoutNanos(requested);
    return atLeastOneTry(Deadline.capWait(requested));
  }

  /**
   * The wait left, or one try at the key when nothing is left (a deadline or a slow connect
   * used it up): a held key then times out, it is never a bad argument.
   */
  public static Duration atLeastOneTry(Duration left) {
    return left.isNegative() || left.isZero() ? ONE_TRY : left;
  }

  /**
   * A turn ({@code handoffSlice}) set explicitly must fit in half the lease: a lease is passed
   * on only while half of it is left, so a longer turn would be a promise never kept.
   */
  public static Duration checkTurn(Duration handoffSlice, boolean set, Duration lease) {
    if (set && handoffSlice.compareTo(lease.dividedBy(2)) > 0) {
      throw new IllegalArgumentException("handoffSlice must be at most half the lease ("
          + lease.dividedBy(2) + " of lease " + lease + "), was " + handoffSlice);
    }
    return handoffSlice;
  }

  public static String shorten(String key) {
    return key.length() <= SHOWN_KEY_CHARS ? key : key.substring(0, SHOWN_KEY_CHARS) + "...";
  }
}
