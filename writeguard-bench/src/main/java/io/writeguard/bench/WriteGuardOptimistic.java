package io.writeguard.bench;

import com.mongodb.client.model.Updates;
import io.writeguard.update.Mutation;
import io.writeguard.update.RetriesExhaustedException;
import io.writeguard.update.VersionedUpdater;
import org.bson.types.ObjectId;

/**
 * WriteGuard's {@link VersionedUpdater} with its defaults: read, set the bit in Java, write
 * {@code $set: {bits}} filtered on the version read, retried from a fresh read on a conflict.
 * Built only through the public builder, so whatever the updater does by default (retry
 * policy, batching) is what is measured. {@code updateOne}: the operation does not use the
 * document after the write, as Spring Data's {@code save} hands back the entity it was given
 * ({@code update} would also give each caller its own copy of the document). Thread-safe.
 */
final class WriteGuardOptimistic implements Contender {
  static final String NAME = "writeguard-versioned";
  /** The same with contention pacing off: a conflict backs off by full jitter alone. */
  static final String BLIND = "writeguard-versioned-blind";

  private final String name;
  private final VersionedUpdater updater;

  WriteGuardOptimistic(Backends backends) {
    this.name = NAME;
    this.updater = VersionedUpdater.builder(backends.hot()).strategyName("bench").build();
  }

  private WriteGuardOptimistic(String name, VersionedUpdater updater) {
    this.name = name;
    this.updater = updater;
  }

  /** {@link #BLIND}: what the default was before contention pacing, to compare in one run. */
  static WriteGuardOptimistic blind(Backends backends) {
    return new WriteGuardOptimistic(BLIND, VersionedUpdater.builder(backends.hot())
        .strategyName("bench").contentionPacing(false).build());
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int add(ObjectId docId, long opId) {
    try {
      return updater.updateOne(docId, doc -> Mutation.update(Updates.set(HotDocument.BITS,
          HotDocument.bitsWith(doc, opId)))).attempts();
    } catch (RetriesExhaustedException e) {
      throw new BudgetExhaustedException(e.getMessage(), e);
    }
  }
}
