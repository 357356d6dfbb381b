package io.writeguard.update;

import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.combine.KeyedCombiner;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.version.VersionPolicy;
import java.util.random.RandomGenerator;

/**
 * What an updater keeps of its {@link UpdaterBuilder}: the shared settings as they were when it
 * was built (checked by the builder's setters, so not again here), and the parts made from them
 * alone, its update loop, batch engine and group-commit queue, so that {@link VersionedUpdater}
 * and {@link LockedUpdater} make them one way. Immutable and thread-safe.
 *
 * @param random null: each thread's ThreadLocalRandom
 */
record UpdaterSettings(VersionPolicy versionPolicy, RetryPolicy retryPolicy,
    WriteGuardListener listener, String strategyName, Ticker ticker, Sleeper sleeper,
    RandomGenerator random, boolean groupCommit, int maxBatchSize) {

  /** The update loop over {@code store}, reporting to {@code events}. */
  UpdateLoop loop(Store store, WriteGuardListener events) {
    return new UpdateLoop(store, versionPolicy, retryPolicy, events, strategyName, ticker,
        sleeper, random);
  }

  /** The batch engine over {@code store} that runs lone updates with {@code loop}. */
  BatchUpdate batches(UpdateLoop loop, Store store, WriteGuardListener events) {
    return new BatchUpdate(loop, store, versionPolicy, retryPolicy, events, ticker, sleeper,
        random);
  }

  /** The queue of group commit, whose leader runs each batch with {@code step}; null if off. */
  KeyedCombiner<BatchUpdate.Call, UpdateOutcome> groupCommitQueue(
      KeyedCombiner.Step<BatchUpdate.Call, UpdateOutcome> step) {
    return !groupCommit ? null
        : KeyedCombiner.<BatchUpdate.Call, UpdateOutcome>builder(step)
            .maxBatch(maxBatchSize)
            .ticker(ticker)
            .build();
  }
}
