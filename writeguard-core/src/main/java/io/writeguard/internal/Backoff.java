package io.writeguard.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Capped exponential backoff: the delay window before retry {@code n} (counting from 1) is
 * {@code base * 2^(n-1)}, never above {@code max}, computed without overflow for any attempt
 * number. The two jitter shapes in use draw from that window: <em>full</em> jitter (uniform in
 * {@code [0, ceiling]}) spreads writers that collided at once, <em>equal</em> jitter (uniform in
 * {@code [ceiling/2, ceiling]}) keeps a floor so a poller never spins. Immutable and thread-safe.
 * Not API.
 */
public final class Backoff {
  private final long baseNanos;
  private final long maxNanos;

  private Backoff(long baseNanos, long maxNanos) {
    this.baseNanos = baseNanos;
    this.maxNanos = maxNanos;
  }

  /**
   * Windows from {@code base} doubling up to {@code max}; both zero or positive. A {@code base}
   * above {@code max} is capped at {@code max}; a zero {@code base} means no delay at all.
   */
  public static Backoff exponential(Duration base, Duration max) {
    Checks.notNegative("base", base);
    Checks.notNegative("max", max);
    return new Backoff(base.toNanos(), max.toNanos());
  }

  /** The largest window, in nanoseconds. */
  public long maxNanos() {
    return maxNanos;
  }

  /**
   * The upper bound of the window before retry {@code attempt} (from 1; lower values count as
   * 1): {@code min(max, base * 2^(attempt-1))}, 0 when {@code base} is 0.
   */
  public long ceilingNanos(int attempt) {
    if (baseNanos == 0) {
      return 0;
    }
    int shift = attempt <= 1 ? 0 : attempt - 1; // not attempt - 1 alone: MIN_VALUE - 1 wraps
    // base << shift fits and stays <= max exactly when base <= max >> shift (shift < 63).
    if (shift >= Long.SIZE - 1 || baseNanos > (maxNanos >> shift)) {
      return maxNanos;
    }
    return baseNanos << shift;
  }

  /** {@link #ceilingNanos} as a Duration. */
  public Duration ceiling(int attempt) {
    return Duration.ofNanos(ceilingNanos(attempt));
  }

  /** A delay uniform in {@code [0, ceiling(attempt)]}. */
  public long fullJitterNanos(int attempt, RandomGenerator random) {
    Objects.requireNonNull(random, "random");
    long ceiling = ceilingNanos(attempt);
    if (ceiling == Long.MAX_VALUE) {
      return random.nextLong() & Long.MAX_VALUE; // ceiling + 1 would wrap
    }
    return ceiling == 0 ? 0 : random.nextLong(0, ceiling + 1);
  }

  /** A delay uniform in {@code [ceiling(attempt) / 2, ceiling(attempt)]}. */
  public long equalJitterNanos(int attempt, RandomGenerator random) {
    Objects.requireNonNull(random, "random");
    long ceiling = ceilingNanos(attempt);
    long half = ceiling / 2;
    return half + random.nextLong(0, ceiling - half + 1);
  }

  @Override
  public String toString() {
    return "Backoff{" + Duration.ofNanos(baseNanos) + ".." + Duration.ofNanos(maxNanos) + "}";
  }
}
