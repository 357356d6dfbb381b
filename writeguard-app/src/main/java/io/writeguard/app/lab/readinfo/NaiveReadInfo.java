package io.writeguard.app.lab.readinfo;

import io.writeguard.app.lab.Strategy;
import io.writeguard.app.lab.StrategyContext;
import io.writeguard.app.readinfo.MarkReadDeps;

/**
 * The seed's route without its lock (the shared {@code naive} mark): find the document, add the
 * user in Java, replace the whole document. Two clients that read the same document both write
 * it back, and the later replace erases the earlier one's mark. It is here to be measured,
 * never to be used. Thread-safe (it keeps no state).
 */
final class NaiveReadInfo implements Strategy<Mark> {
  private final SharedReadInfo shared;

  NaiveReadInfo(StrategyContext context) {
    this(context, () -> {});
  }

  /** {@code betweenReadAndWrite} lets a test hold clients between find and replace. */
  NaiveReadInfo(StrategyContext context, Runnable betweenReadAndWrite) {
    this.shared = SharedReadInfo.create("naive", context, MarkReadDeps.DEFAULT_RETRY,
        betweenReadAndWrite);
  }

  @Override
  public void apply(Mark mark) {
    shared.apply(mark);
  }
}
