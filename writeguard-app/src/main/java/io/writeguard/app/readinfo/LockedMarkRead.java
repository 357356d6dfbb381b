package io.writeguard.app.readinfo;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import io.writeguard.Ticker;
import io.writeguard.internal.UnderLock;
import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.FencedWriter.Outcome;
import io.writeguard.lock.Fencing;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.StaleLockException;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.update.RetriesExhaustedException;
import io.writeguard.version.VersionPolicy;
import java.time.Duration;
import java.util.OptionalLong;
import org.bson.Document;

/**
 * The seed's fix: lock the document, find it, add the user in Java, {@code replaceOne} the
 * whole document, release. {@code local-lock} locks in this process only; {@code mongo-lock}
 * and {@code redis-lock} take a lease lock every process shares and fence the read and the
 * write with its token ({@link FencedWriter}: the read raises the document's {@code _fence}
 * to the token, the replace is refused if a newer holder got there first).
 *
 * <p>{@code local-lock} is kept exactly as the seed wrote it: the replace is filtered on
 * {@code _id} alone. It is correct inside one process and loses marks as soon as a second
 * process writes the same document, which is the lesson the lab and the service show (the
 * multi-process serve test asserts lost marks). The distributed variants add two things the
 * seed's version lacks, both cheap:
 *
 * <ul>
 *   <li>The replace writes version + 1. Unless {@link MarkReadDeps#versionFilterUnderLock()}
 *       is off, the {@link FencedWriter} is built with the version policy: every fenced write,
 *       the claim included, raises the version, and the replace matches only the version read
 *       (at the claim). Under the lock no holder can move it, so this costs nothing; but a
 *       writer that does not take the lock (an {@code atomic}, {@code optimistic} or
 *       {@code adaptive} mark, the other backend's lock, a script) then makes the replace miss
 *       instead of being erased by it, and a replacing writer that read the document before
 *       the claim misses instead of writing the old {@code _fence} back. A miss re-reads under
 *       the same lock, up to the retry policy's attempts. The lab turns this off (its
 *       documents are per strategy), so that only the lock and its fence protect the write.
 *   <li>A fenced write refused as stale (this holder's lease ran out, a newer holder wrote)
 *       wrote nothing; the mark takes the lock again and starts over, at most
 *       {@value #MAX_FENCED_REJECTIONS} times.
 * </ul>
 *
 * <p>Lock key: {@code <collection>:<_id>}. Thread-safe: it keeps no per-call state.
 */
final class LockedMarkRead implements MarkReadStrategy {
  static final String LOCAL = "local-lock";
  static final String MONGO = "mongo-lock";
  static final String REDIS = "redis-lock";
  static final int MAX_FENCED_REJECTIONS = 3;

  /** Reads and writes one document while its lock is held. */
  private interface Access {
    /** The document, or null when there is none. */
    Document read(LockHandle lock, Object id);

    /** Replaces the document (filtered on its version when the writer is versioned). */
    Outcome replace(LockHandle lock, Object id, Document replacement);
  }

  private final String name;
  private final MongoCollection<Document> collection;
  private final String collectionName;
  private final LockService locks;
  private final Access access;
  private final WriteGuardListener listener;
  private final OperationScope scope;
  private final Ticker ticker;
  private final Duration lockWait;
  private final int maxAttempts;
  private final Runnable betweenReadAndWrite;
  private final VersionPolicy versions = VersionPolicy.defaults();
  private final boolean filterOnVersion;

  private LockedMarkRead(String name, MarkReadDeps deps, LockService locks, boolean fenced) {
    this.name = name;
    this.collection = deps.collection();
    this.collectionName = Marks.collectionName(collection);
    this.locks = locks;
    this.listener = deps.listener();
    this.scope = new OperationScope(collectionName, name);
    this.ticker = deps.ticker();
    this.lockWait = deps.lockWait();
    this.maxAttempts = deps.retryPolicy().maxAttempts();
    this.betweenReadAndWrite = deps.betweenReadAndWrite();
    this.access = fenced ? fencedAccess(deps) : plainAccess();
    this.filterOnVersion = fenced && deps.versionFilterUnderLock();
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
    String key = collectionName + ":" + item.docId();
    Tries tries = new Tries(ticker.nanoTime());
    while (true) {
      LockHandle lock = locks.acquire(key, lockWait);
      try {
        // Not try-with-resources: a release that fails after the mark was stored must not
        // report the stored mark as failed (the client would retry a write that stands).
        return UnderLock.run(lock, () -> markHolding(lock, item, userId, tries));
      } catch (StaleLockException e) {
        // Our lease ran out and a newer holder wrote the document; we wrote nothing.
        tries.fencedRejections++;
        if (tries.fencedRejections >= MAX_FENCED_REJECTIONS) {
          listener.onFailure(scope, item.docId(), e);
          throw e;
        }
        listener.onRetry(scope, item.docId(), tries.attempts, Duration.ZERO);
      }
    }
  }

  /** Attempts and fenced rejections of one mark, across its lock acquisitions. */
  private static final class Tries {
    final long start;
    int attempts;
    int fencedRejections;

    Tries(long start) {
      this.start = start;
    }
  }

  private MarkResult markHolding(LockHandle lock, ReadItem item, String userId, Tries tries) {
    Object id = item.docId();
    while (true) {
      int attempts = ++tries.attempts;
      listener.onAttempt(scope, id, attempts);
      Document doc = access.read(lock, id);
      if (doc == null) {
        throw failed(new NoSuchDocumentException(collectionName, item));
      }
      betweenReadAndWrite.run();
      OptionalLong read = versions.versionOf(id, doc);
      boolean added;
      try {
        added = ReadLists.add(doc, item, userId, collectionName);
      } catch (MarkReadException e) {
        throw failed(e);
      }
      if (!added) {
        return success(item, tries.start, false, read.orElse(VersionPolicy.INITIAL_VERSION),
            attempts, tries.fencedRejections);
      }
      long next = read.isPresent() ? read.getAsLong() + 1 : 1;
      if (!filterOnVersion) {
        doc.put(versions.field(), next); // fenced only: the lock alone protects the write
      }
      // Versioned (serve): the writer replaces only the version read and stores it + 1.
      switch (access.replace(lock, id, doc)) {
        case APPLIED:
          return success(item, tries.start, true, next, attempts, tries.fencedRejections);
        case NOT_FOUND:
          throw failed(new NoSuchDocumentException(collectionName, item));
        default:
          // A writer that bypasses the lock moved the version: read again, still locked.
          listener.onConflict(scope, id, attempts);
          if (attempts >= maxAttempts) {
            Duration elapsed = elapsed(tries.start);
            listener.onExhausted(scope, id, attempts, elapsed);
            throw new RetriesExhaustedException(collectionName, id, attempts, elapsed,
                RetriesExhaustedException.Budget.ATTEMPTS, read, null);
          }
          listener.onRetry(scope, id, attempts, Duration.ZERO);
      }
    }
  }

  @Override
  public String name() {
    return name;
  }

  private MarkResult success(ReadItem item, long start, boolean added, long version,
      int attempts, int fencedRejections) {
    listener.onSuccess(scope, item.docId(), attempts, elapsed(start));
    return new MarkResult(name, added, OptionalLong.of(version), attempts, fencedRejections);
  }

  private MarkReadException failed(MarkReadException e) {
    listener.onFailure(scope, e.item().docId(), e);
    return e;
  }

  private Duration elapsed(long start) {
    return Duration.ofNanos(ticker.nanoTime() - start);
  }

  private Access plainAccess() {
    return new Access() {
      @Override
      public Document read(LockHandle lock, Object id) {
        return collection.find(eq("_id", id)).first();
      }

      @Override
      public Outcome replace(LockHandle lock, Object id, Document replacement) {
        // The seed's save(): by _id only, so another process's write in between is erased.
        if (collection.replaceOne(eq("_id", id), replacement)
            .getMatchedCount() == 1) {
          return Outcome.APPLIED;
        }
        return collection.countDocuments(eq("_id", id)) == 0
            ? Outcome.NOT_FOUND : Outcome.FILTER_NOT_MATCHED;
      }
    };
  }

  private Access fencedAccess(MarkReadDeps deps) {
    // Each backend counts its own tokens, so each fences its own field: a Redis token and a
    // MongoDB token are not comparable, and one shared field would make the backend with the
    // lower counter look stale forever once the other had written (mixing ?strategy= in serve).
    // Marks made under different backends still cannot erase each other: the replace is
    // filtered on the version read.
    FencedWriter.Builder builder = FencedWriter.builder(collection)
        .fenceField(name.equals(REDIS) ? Fencing.FIELD + "_redis" : Fencing.FIELD)
        .listener(deps.listener())
        .strategy(name);
    if (deps.versionFilterUnderLock()) {
      // Serve: other writers (optimistic, adaptive, atomic, the other lock) share the
      // documents. Every fenced write, the claim included, raises the version, and the replace
      // matches only the version it read: a replacing writer that read the document before
      // our claim misses instead of writing the old _fence back (lowering it), and we miss
      // instead of erasing a write made after our claim.
      builder.versionPolicy(versions);
    }
    FencedWriter writer = builder.build();
    return new Access() {
      @Override
      public Document read(LockHandle lock, Object id) {
        return writer.claim(lock, id).orElse(null);
      }

      @Override
      public Outcome replace(LockHandle lock, Object id, Document replacement) {
        return writer.replaceOne(lock, id, replacement);
      }
    };
  }
}
