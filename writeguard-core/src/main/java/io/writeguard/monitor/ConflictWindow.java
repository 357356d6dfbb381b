package io.writeguard.monitor;

import io.writeguard.Ticker;
import io.writeguard.internal.Checks;
import java.time.Duration;

/**
 * Attempts and conflicts over a sliding window of time, kept in a ring of buckets.
 *
 * <p>A ring of fixed buckets rather than a list of timestamps: memory is constant however hot
 * the key, and the ratio costs one pass over a handful of buckets. The window slides in steps
 * of one bucket, which is precise enough to tell a retry storm from a quiet period.
 *
 * <p>Thread-safe: all methods synchronise on the window; each call is a few array writes.
 */
public final class ConflictWindow {
  private final Ticker ticker;
  private final long bucketNanos;
  private final long[] attempts;
  private final long[] conflicts;
  private final long[] bucketStart;

  public ConflictWindow(Duration window, int buckets, Ticker ticker) {
    Checks.positive("window", window);
    Checks.atLeast("buckets", buckets, 1);
    this.ticker = ticker;
    this.bucketNanos = Math.max(1, window.toNanos() / buckets);
    this.attempts = new long[buckets];
    this.conflicts = new long[buckets];
    this.bucketStart = new long[buckets];
    java.util.Arrays.fill(bucketStart, Long.MIN_VALUE);
  }

  /** Counts one attempt. */
  public synchronized void recordAttempt() {
    attempts[current()]++;
  }

  /** Counts one conflict (an attempt that found the version moved). */
  public synchronized void recordConflict() {
    conflicts[current()]++;
  }

  /** Attempts inside the window. */
  public synchronized long attempts() {
    return sum(attempts);
  }

  /** Conflicts inside the window. */
  public synchronized long conflicts() {
    return sum(conflicts);
  }

  /** Conflicts divided by attempts inside the window; 0 when there were no attempts. */
  public synchronized double ratio() {
    long a = sum(attempts);
    return a == 0 ? 0.0 : (double) sum(conflicts) / a;
  }

  private int current() {
    long now = ticker.nanoTime();
    long start = Math.floorDiv(now, bucketNanos) * bucketNanos;
    int index = (int) Math.floorMod(Math.floorDiv(now, bucketNanos), (long) attempts.length);
    if (bucketStart[index] != start) {
      bucketStart[index] = start;
      attempts[index] = 0;
      conflicts[index] = 0;
    }
    return index;
  }

  private long sum(long[] counts) {
    long oldest = ticker.nanoTime() - bucketNanos * attempts.length;
    long total = 0;
    for (int i = 0; i < counts.length; i++) {
      if (bucketStart[i] != Long.MIN_VALUE && bucketStart[i] > oldest) {
        total += counts[i];
      }
    }
    return total;
  }
}
