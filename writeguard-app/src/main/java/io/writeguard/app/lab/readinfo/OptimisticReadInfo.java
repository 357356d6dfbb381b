package io.writeguard.app.lab.readinfo;

import io.writeguard.app.lab.Strategy;
import io.writeguard.app.lab.StrategyContext;
import io.writeguard.path.AtomicUpdates;
import io.writeguard.update.Mutation;
import io.writeguard.update.RetryPolicy;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import java.util.List;

/**
 * The mark as an optimistic versioned update: read the document, compute the item's new
 * {@code read} list in Java, and write it with {@code $set} only if the document's version is
 * still the one read ({@link VersionedUpdater}: filter on {@code version}, {@code $inc} it in
 * the same write; a miss is a conflict, retried from a fresh read with full-jitter backoff).
 *
 * <p>The write is the computed list, not {@code $addToSet}: this is the read-modify-write the
 * seed does, made safe by the version check (without it, two clients that read the same list
 * would each write their own copy, and the later one would erase the earlier mark). A click on
 * an item the user already marked writes nothing. Thread-safe: the updater is.
 */
final class OptimisticReadInfo implements Strategy<Mark> {
  /**
   * The lab's retry policy: the library's default backoff (full jitter, 5 ms doubling to
   * 500 ms) with more attempts (30) and a longer deadline (10 s). Chosen by measurement with 64
   * clients on one hot document (docs/lab.md): without backoff the 64 writers keep colliding
   * and each round wastes 63 reads and writes, so optimistic reached about 7% of atomic's
   * throughput; a window growing to 500 ms spreads the writers that collided, so the next round
   * has few contenders. A smaller cap (64 ms) still let them collide and ran out of 30 attempts.
   * Giving up is counted as an error, never as an acknowledged mark.
   */
  static final RetryPolicy POLICY = RetryPolicy.builder()
      .maxAttempts(30)
      .deadline(Duration.ofSeconds(10))
      .backoff(Duration.ofMillis(5), Duration.ofMillis(500))
      .build();

  private final VersionedUpdater updater;
  private final Runnable betweenReadAndWrite;

  OptimisticReadInfo(StrategyContext context) {
    this(context, POLICY, () -> {});
  }

  /** {@code betweenReadAndWrite} lets a test hold clients after the read of an attempt. */
  OptimisticReadInfo(StrategyContext context, RetryPolicy policy, Runnable betweenReadAndWrite) {
    this.betweenReadAndWrite = betweenReadAndWrite;
    this.updater = VersionedUpdater.builder(context.collection())
        .retryPolicy(policy)
        .listener(context.listener())
        .strategyName(context.scope().strategy())
        .ticker(context.ticker())
        .build();
  }

  @Override
  public void apply(Mark mark) {
    updater.updateOne(mark.docId(), current -> {
      betweenReadAndWrite.run();
      // current is this attempt's private copy: changing it is allowed and stays pure.
      if (!ReadInfoDocs.markRead(current, mark)) {
        return Mutation.none();
      }
      List<Object> read = ReadInfoDocs.readList(current, mark);
      return Mutation.update(AtomicUpdates.set(ReadInfoDocs.readPath(mark), read));
    });
  }
}
