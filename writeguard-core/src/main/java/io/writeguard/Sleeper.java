package io.writeguard;

import java.time.Duration;

/**
 * Sleeps for a backoff. Injected beside a {@link Ticker} so tests can advance a fake clock
 * instead of sleeping. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Sleeper {
  void sleep(Duration duration) throws InterruptedException;

  /** {@link Thread#sleep(long, int)}; zero and negative durations return at once. */
  static Sleeper system() {
    return duration -> {
      if (!duration.isNegative() && !duration.isZero()) {
        Thread.sleep(duration.toMillis(), (int) (duration.toNanosPart() % 1_000_000));
      }
    };
  }
}
