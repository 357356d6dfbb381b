package io.writeguard.app.lab;

import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts one strategy run's events: attempts, conflicts, retries, exhausted budgets and
 * failures. Thread-safe and cheap (one {@link LongAdder} increment per event), since every
 * client of the run reports to the same instance.
 */
public final class StrategyStats implements WriteGuardListener {
  private final LongAdder attempts = new LongAdder();
  private final LongAdder conflicts = new LongAdder();
  private final LongAdder retries = new LongAdder();
  private final LongAdder exhausted = new LongAdder();
  private final LongAdder failures = new LongAdder();

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

  /** Conflicts per attempt, 0 when nothing was attempted. */
  public double conflictRatio() {
    long a = attempts();
    return a == 0 ? 0.0 : (double) conflicts() / a;
  }
}
