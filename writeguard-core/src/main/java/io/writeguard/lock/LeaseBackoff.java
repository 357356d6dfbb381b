package io.writeguard.lock;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Delay before the next attempt of a lock head that found the key busy: exponential from
 * {@code minNanos}, capped at {@code maxNanos}, with "equal jitter" (half fixed, half random) so
 * heads of different processes drift apart instead of polling in step. Immutable, thread-safe.
 */
final class LeaseBackoff {
  private final long minNanos;
  private final long maxNanos;

  LeaseBackoff(long minNanos, long maxNanos) {
    this.minNanos = minNanos;
    this.maxNanos = maxNanos;
  }

  /** The delay after failed attempt number {@code attempt} (from 1), never above {@code capNanos}. */
  long delayNanos(int attempt, long capNanos) {
    int doublings = Math.min(Math.max(attempt - 1, 0), 30);
    long ceiling = minNanos > (maxNanos >> doublings) ? maxNanos : Math.min(maxNanos, minNanos << doublings);
    long half = ceiling / 2;
    long delay = half + (half > 0 ? ThreadLocalRandom.current().nextLong(half + 1) : 0);
    return Math.max(0, Math.min(delay, capNanos));
  }

  long maxNanos() {
    return maxNanos;
  }
}
