package io.writeguard.app.readinfo;

import io.writeguard.lock.Fencing;
import io.writeguard.lock.LockService;
import io.writeguard.update.DocumentNotFoundException;
import io.writeguard.update.LockedUpdater;
import io.writeguard.update.Mutation;
import io.writeguard.update.UpdateOutcome;
import java.util.OptionalLong;

/**
 * The seed's fix: lock the document, find it, add the user in Java, {@code replaceOne} the
 * whole document, release; run by a {@link LockedUpdater}, so the marks of one document that
 * arrive together share one lock hold, one read and one write (group commit, unless
 * {@link MarkReadDeps#groupCommit()} is off). {@code local-lock} locks in this process only;
 * {@code mongo-lock} and {@code redis-lock} take a lease lock every process shares and fence
 * the read and the write with its token (the read raises the document's {@code _fence} to the
 * token, the replace is refused if a newer holder got there first, and a refused mark takes
 * the lock again, at most {@value LockedUpdater#MAX_FENCED_REJECTIONS} times).
 *
 * <p>{@code local-lock} is kept as the seed wrote it: no fence, and the replace is filtered on
 * {@code _id} alone. It is correct inside one process and loses marks as soon as a second
 * process writes the same document, which is the lesson the lab and the service show (the
 * multi-process serve test asserts lost marks).
 *
 * <p>The lease locks' replace is also filtered on the version read unless
 * {@link MarkReadDeps#versionFilterUnderLock()} is off: under the lock no holder moves the
 * version, so this costs nothing, but a writer that does not take the lock (an {@code atomic},
 * {@code optimistic} or {@code adaptive} mark, the other backend's lock, a script) then makes
 * the replace miss and re-read under the same lock instead of being erased by it. The lab turns
 * it off (its documents are per strategy), so that only the lock and its fence protect the
 * write and a broken lock shows up as lost marks.
 *
 * <p>Lock key: {@code <collection>:<_id>}. Thread-safe: the updater is.
 */
final class LockedMarkRead implements MarkReadStrategy {
  static final String LOCAL = "local-lock";
  static final String MONGO = "mongo-lock";
  static final String REDIS = "redis-lock";

  private final String name;
  private final String collectionName;
  private final Runnable betweenReadAndWrite;
  private final LockedUpdater updater;

  private LockedMarkRead(String name, MarkReadDeps deps, LockService locks, boolean fenced) {
    this.name = name;
    this.collectionName = Marks.collectionName(deps.collection());
    this.betweenReadAndWrite = deps.betweenReadAndWrite();
    this.updater = LockedUpdater.builder(deps.collection(), locks)
        .fencing(fenced)
        // Each backend counts its own tokens, so each fences its own field: a Redis token and
        // a MongoDB token are not comparable, and one shared field would make the backend with
        // the lower counter look stale forever once the other had written (mixing ?strategy=
        // in serve). Marks made under different backends still cannot erase each other: the
        // replace is filtered on the version read.
        .fenceField(name.equals(REDIS) ? Fencing.FIELD + "_redis" : Fencing.FIELD)
        .versionFilter(fenced && deps.versionFilterUnderLock())
        .lockPrefix(collectionName + ":")
        .lockWait(deps.lockWait())
        .retryPolicy(deps.retryPolicy())
        .listener(deps.listener())
        .strategyName(name)
        .ticker(deps.ticker())
        .groupCommit(deps.groupCommit())
        .build();
  }

  /** {@code local-lock}: in-process lock, plain find and replace by {@code _id} (the seed's fix). */
  static LockedMarkRead local(MarkReadDeps deps) {
    return new LockedMarkRead(LOCAL, deps, deps.localLocks(), false);
  }

  /** A lease lock shared by processes ({@code mongo-lock}, {@code redis-lock}), fenced. */
  static LockedMarkRead fenced(String name, MarkReadDeps deps, LockService locks) {
    return new LockedMarkRead(name, deps, locks, true);
  }

  @Override
  public MarkResult mark(ReadItem item, String userId) {
    Marks.checkUser(userId);
    UpdateOutcome outcome;
    try {
      outcome = updater.updateOne(item.docId(), current -> {
        betweenReadAndWrite.run();
        // current is this caller's private copy: changing it keeps the mutator pure.
        return ReadLists.add(current, item, userId, collectionName)
            ? Mutation.replace(current) : Mutation.none();
      });
    } catch (DocumentNotFoundException e) {
      NoSuchDocumentException missing = new NoSuchDocumentException(collectionName, item);
      missing.initCause(e);
      throw missing;
    }
    return new MarkResult(name, outcome.written(), OptionalLong.of(outcome.version()),
        outcome.attempts(), outcome.fencedRejections());
  }

  @Override
  public String name() {
    return name;
  }
}
