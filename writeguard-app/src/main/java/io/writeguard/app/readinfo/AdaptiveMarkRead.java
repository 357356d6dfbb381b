package io.writeguard.app.readinfo;

import io.writeguard.adaptive.AdaptiveUpdater;

/**
 * The optimistic mark, routed by an {@link AdaptiveUpdater}: optimistic while a document is
 * quiet; once its conflict ratio crosses the policy's threshold (10%), through the document's
 * lock (in-process by default) until it calms down. The version stays the fence on both
 * routes, so a switch can never lose a mark. Thread-safe.
 */
final class AdaptiveMarkRead {
  static final String NAME = "adaptive";

  private AdaptiveMarkRead() {}

  static MarkReadStrategy create(MarkReadDeps deps) {
    return new OptimisticMarkRead(deps, NAME, updater -> {
      AdaptiveUpdater adaptive = AdaptiveUpdater.builder(updater, deps.adaptiveLocks())
          .policy(deps.adaptivePolicy())
          .lockWait(deps.lockWait())
          .ticker(deps.ticker())
          .groupCommit(deps.groupCommit())
          .build();
      return adaptive::updateOne;
    });
  }
}
