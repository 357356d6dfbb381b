package io.writeguard.app.lab;

import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Counts one strategy run's events: attempts, conflicts, retries, exhausted budgets,
 * failures, lock waits (a histogram of acquired waits, and timeouts) and fenced rejections.
 * Thread-safe and cheap (one {@link LongAdder} increment or one wait-free histogram record per
 * event), since every client of the run reports to the same instance.
 *
 * <p>This is what one round of a strategy counts; {@code result.RoundMedians} folds the rounds
 * into the one result the table shows.
 */
public final class StrategyStats implements WriteGuardListener {
  private final LongAdder attempts = new LongAdder();
  private final LongAdder conflicts = new LongAdder();
  private final LongAdder retries = new LongAdder();
  private final LongAdder exhausted = new LongAdder();
  private final LongAdder failures = new LongAdder();
  private final LongAdder lockTimeouts = new LongAdder();
  private final LongAdder fencedRejections = new LongAdder();
  /** Microseconds waited for locks that were acquired; 3 significant digits, grows as needed. */
  private final Histogram lockWaitMicros = new ConcurrentHistogram(3);

  @Override
  public void onAttempt(OperationScope scope, Object key, int attempt) {
    attempts.increment();
  }

  @Override
  public void onConflict(OperationScope scope, Object key, int attempt) {
    conflicts.increment();
  }

  @Override
  public void onRetry(OperationScope scope, Object key, int attempt, Duration backoff) {
    retries.increment();
  }

  @Override
  public void onExhausted(OperationScope scope, Object key, int attempts, Duration elapsed) {
    exhausted.increment();
  }

  @Override
  public void onFailure(OperationScope scope, Object key, Throwable error) {
    failures.increment();
  }

  @Override
  public void onLockWait(String backend, String key, Duration waited, boolean acquired) {
    if (acquired) {
      lockWaitMicros.recordValue(Math.max(0, TimeUnit.NANOSECONDS.toMicros(waited.toNanos())));
    } else {
      lockTimeouts.increment();
    }
  }

  @Override
  public void onFencedRejection(OperationScope scope, Object key, long token) {
    fencedRejections.increment();
  }

  public long attempts() {
    return attempts.sum();
  }

  public long conflicts() {
    return conflicts.sum();
  }

  public long retries() {
    return retries.sum();
  }

  public long exhausted() {
    return exhausted.sum();
  }

  public long failures() {
    return failures.sum();
  }

  public long lockTimeouts() {
    return lockTimeouts.sum();
  }

  public long fencedRejections() {
    return fencedRejections.sum();
  }

  /** A copy of the waits for acquired locks, in microseconds (empty when no lock was taken). */
  public Histogram lockWaitMicros() {
    return lockWaitMicros.copy();
  }

  /** Conflicts per attempt, 0 when nothing was attempted. */
  public double conflictRatio() {
    long a = attempts();
    return a == 0 ? 0.0 : (double) conflicts() / a;
  }
}
