package io.writeguard;

/**
 * A source of monotonic time in nanoseconds. Every component that waits, expires or backs off
 * takes one from its builder, so tests drive time by hand instead of sleeping.
 * Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Ticker {
  /** Monotonic nanoseconds, comparable only with other values from the same ticker. */
  long nanoTime();

  /** The JVM's {@link System#nanoTime()}. */
  static Ticker system() {
    return System::nanoTime;
  }
}
