package io.writeguard.app.lab.readinfo;

import io.writeguard.app.lab.Strategy;
import io.writeguard.app.lab.StrategyContext;
import io.writeguard.app.readinfo.MarkReadDeps;

/**
 * The mark as one atomic operator (the shared {@code atomic} mark): {@code $addToSet} on
 * {@code infos.<key>.<skey>.<i>.read}, filtered on the item's existence. The server applies it
 * to the current document, so there is nothing to lose and nothing to retry, and a repeated
 * click changes nothing. Thread-safe (it keeps no state).
 */
final class AtomicReadInfo implements Strategy<Mark> {
  private final SharedReadInfo shared;

  AtomicReadInfo(StrategyContext context) {
    this.shared = SharedReadInfo.create("atomic", context, MarkReadDeps.DEFAULT_RETRY, () -> {});
  }

  @Override
  public void apply(Mark mark) {
    shared.apply(mark);
  }
}
