package io.writeguard.app.lab.readinfo;

import io.writeguard.app.lab.Strategy;
import io.writeguard.app.lab.StrategyContext;
import io.writeguard.app.readinfo.MarkReadDeps;
import io.writeguard.update.RetryPolicy;

/**
 * The mark as an optimistic versioned update (the shared {@code optimistic} mark): read the
 * document, compute the item's new {@code read} list in Java, and write it with {@code $set}
 * only if the document's version is still the one read; a miss is a conflict, retried from a
 * fresh read with full-jitter backoff. Thread-safe: the updater is.
 */
final class OptimisticReadInfo implements Strategy<Mark> {
  /**
   * The lab's retry policy: 30 attempts, 10 s deadline, full-jitter backoff from 5 ms doubling
   * to 500 ms ({@link MarkReadDeps#DEFAULT_RETRY}; docs/lab.md tells how it was chosen). Giving
   * up is counted as an error, never as an acknowledged mark.
   */
  static final RetryPolicy POLICY = MarkReadDeps.DEFAULT_RETRY;

  private final SharedReadInfo shared;

  OptimisticReadInfo(StrategyContext context) {
    this(context, POLICY, () -> {});
  }

  /** {@code betweenReadAndWrite} lets a test hold clients after the read of an attempt. */
  OptimisticReadInfo(StrategyContext context, RetryPolicy policy, Runnable betweenReadAndWrite) {
    this.shared = SharedReadInfo.create("optimistic", context, policy, betweenReadAndWrite);
  }

  @Override
  public void apply(Mark mark) {
    shared.apply(mark);
  }
}
