package io.writeguard.app.readinfo;

import io.writeguard.atomic.AtomicUpdates;
import io.writeguard.update.DocumentNotFoundException;
import io.writeguard.update.Mutation;
import io.writeguard.update.Mutator;
import io.writeguard.update.UpdateOutcome;
import io.writeguard.update.VersionedUpdater;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The mark as an optimistic versioned update ({@link VersionedUpdater}): read the document,
 * compute the item's new {@code read} list in Java, and {@code $set} it only if the version is
 * still the one read, incrementing it in the same write; a miss is a conflict, retried from a
 * fresh read with full-jitter backoff within the retry policy.
 *
 * <p>It writes the computed list, not {@code $addToSet}: this is the seed's read-modify-write,
 * made safe by the version check. A repeated click writes nothing. Also the base of
 * {@code adaptive}, which runs the same update through a lock while a document is hot.
 * Thread-safe: the updater is.
 */
final class OptimisticMarkRead implements MarkReadStrategy {
  static final String NAME = "optimistic";

  private final String name;
  private final String collectionName;
  private final Runnable betweenReadAndWrite;
  private final Update update;

  /** How the versioned update is run: directly, or by an adaptive updater. */
  @FunctionalInterface
  interface Update {
    UpdateOutcome run(Object id, Mutator mutator);
  }

  OptimisticMarkRead(MarkReadDeps deps) {
    this(deps, NAME, updater -> updater::updateOne);
  }

  /** {@code route} turns the versioned updater into the update to run (adaptive wraps it). */
  OptimisticMarkRead(MarkReadDeps deps, String name, Function<VersionedUpdater, Update> route) {
    this.name = name;
    this.collectionName = Marks.collectionName(deps.collection());
    this.betweenReadAndWrite = deps.betweenReadAndWrite();
    VersionedUpdater updater = VersionedUpdater.builder(deps.collection())
        .retryPolicy(deps.retryPolicy())
        .listener(deps.listener())
        .strategyName(name)
        .ticker(deps.ticker())
        .groupCommit(deps.groupCommit())
        .build();
    this.update = route.apply(updater);
  }

  @Override
  public MarkResult mark(ReadItem item, String userId) {
    Marks.checkUser(userId);
    UpdateOutcome outcome;
    try {
      outcome = update.run(item.docId(), current -> {
        betweenReadAndWrite.run();
        // current is this attempt's private copy: changing it keeps the mutator pure.
        if (!ReadLists.add(current, item, userId, collectionName)) {
          return Mutation.none();
        }
        List<Object> read = ReadLists.readList(current, item, collectionName);
        return Mutation.update(AtomicUpdates.set(item.readPath(), read));
      });
    } catch (DocumentNotFoundException e) {
      NoSuchDocumentException missing = new NoSuchDocumentException(collectionName, item);
      missing.initCause(e);
      throw missing;
    }
    return new MarkResult(name, outcome.written(), OptionalLong.of(outcome.version()),
        outcome.attempts(), 0);
  }

  @Override
  public String name() {
    return name;
  }
}
