package io.writeguard.update;

import com.mongodb.client.model.Filters;
import io.writeguard.internal.DocumentKey;
import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.StaleLockException;
import io.writeguard.version.InvalidVersionException;
import io.writeguard.version.VersionPolicy;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.conversions.Bson;

/**
 * The {@link Store} of one batch that a {@link LockedUpdater} runs while it holds the
 * document's lock. Package-private; made per batch (from what the updater's batches share,
 * {@link Shared}), used on the leader's thread only.
 *
 * <p>Two settings shape every round trip:
 *
 * <ul>
 *   <li><b>Fenced</b> (a {@link FencedWriter} is given): the read is a claim, which raises the
 *       document's fence to the lock's token as it reads, and every write is filtered on the
 *       fence and raises it. A write the fence refuses throws a {@link FenceRefusal} (nothing
 *       written). The claim raises the version as well, so a replacing writer that read the
 *       document before the claim misses instead of writing the old fence back; and it touches
 *       only a document whose version the policy accepts ({@link VersionPolicy#usableFilter}):
 *       one it would refuse is read plainly and refused, unchanged.
 *   <li><b>Versioned</b>: the batch's write filters on the version read, as an optimistic
 *       update does, so a writer that bypasses the lock is never erased (its write shows up as
 *       a conflict, and the round re-reads). Unversioned, the version read is dropped from the
 *       filter: the lock and the fence alone guard the write (the version is still written).
 *       That is how the seed's lock writes, and how the lab writes, so that a broken lock shows
 *       up as lost updates rather than as conflicts absorbed by a second check.
 * </ul>
 */
final class LockedStore implements Store {
  /** How often a claim is tried again when the document's version changed under it. */
  private static final int CLAIM_TRIES = 3;

  private final Shared shared;
  private final MongoStore plain;
  private final FencedWriter writer; // null: unfenced
  private final DocumentKey key;
  private final Object id;
  private final LockHandle lock;

  /**
   * @param shared what the stores of the updater's batches share
   * @param key the document
   */
  LockedStore(Shared shared, DocumentKey key, LockHandle lock) {
    this.shared = shared;
    this.plain = shared.plain();
    this.writer = shared.writer();
    this.key = key;
    this.id = key.id();
    this.lock = lock;
  }

  /**
   * What the stores of one updater's batches share, made once with the updater ({@link #of}).
   * The claim's filter is rendered to BSON there rather than on every claim: it is a tree of a
   * dozen operators whose values the driver would look up in the codec registry one by one
   * each time (about 6 KB and several microseconds per lone update); the BSON sent is the same.
   * The claim's {@code $inc} of the version is made once there too (the fenced writer copies
   * it into each claim's update and adds the fence's {@code $max}, never changing it).
   * Immutable: nothing changes the rendered filter or the increment (the driver's filters only
   * read the documents they are built from).
   *
   * @param owner the updater whose batches the stores serve, named in their refusals
   * @param writer the fenced writer, null: unfenced
   */
  record Shared(MongoStore plain, Object owner, FencedWriter writer, VersionPolicy versions,
      boolean versioned, Bson claimFilter, Bson claimIncrement) {

    static Shared of(MongoStore plain, Object owner, FencedWriter writer,
        VersionPolicy versions, boolean versioned) {
      return new Shared(plain, owner, writer, versions, versioned,
          versions.usableFilter().toBsonDocument(BsonDocument.class, plain.codecRegistry()),
          versions.increment());
    }
  }

  /**
   * The fence refused a write or a claim of this store: a newer holder claimed the document, or
   * the handle knew its lease was lost. Marked, so that the updater retakes the lock for this
   * refusal and never for a {@code StaleLockException} a mutator threw.
   */
  static final class FenceRefusal extends StaleLockException {
    private static final long serialVersionUID = 1L;

    private final transient Object owner;
    private final transient DocumentKey key;

    FenceRefusal(StaleLockException refused, Object owner, DocumentKey key) {
      super(refused);
      this.owner = owner;
      this.key = key;
    }

    /** True for a refusal of an update of {@code key} run by {@code updater}. */
    boolean refuses(Object updater, DocumentKey document) {
      return owner == updater && key.equals(document);
    }
  }

  @Override
  public String collectionName() {
    return plain.collectionName();
  }

  @Override
  public CodecRegistry codecRegistry() {
    return plain.codecRegistry();
  }

  @Override
  public RawBsonDocument read(Object readId) {
    if (writer == null) {
      return plain.read(readId);
    }
    VersionPolicy versions = shared.versions();
    for (int tries = 1; ; tries++) {
      // The claimed document as the server sent it: the loop reads its version from the bytes
      // and decodes the mutator's copy from them, so a decoded Document is never needed here.
      Optional<RawBsonDocument> claimed = fenced(() ->
          writer.findOneAndUpdateRaw(lock, readId, shared.claimFilter(), shared.claimIncrement()));
      if (claimed.isPresent()) {
        return claimed.get();
      }
      RawBsonDocument current = plain.read(readId);
      if (current == null) {
        return null;
      }
      // There, but not claimable: its version is one the policy refuses. Say so, unchanged.
      OptionalLong version = versions.expectedVersion(readId, current);
      if (version.isPresent() && version.getAsLong() >= Long.MAX_VALUE - 1) {
        throw new InvalidVersionException(readId, versions.field(),
            InvalidVersionException.Problem.AT_MAXIMUM, Long.toString(version.getAsLong()));
      }
      if (tries == CLAIM_TRIES) {
        throw new IllegalStateException("document _id=" + readId + " in " + collectionName()
            + " could not be claimed " + CLAIM_TRIES + " times though its version "
            + current.get(versions.field()) + " is usable: is it being rewritten meanwhile?");
      }
    }
  }

  @Override
  public WriteConstraints constraints() {
    return plain.constraints();
  }

  @Override
  public WriteConstraints freshConstraints() {
    return plain.freshConstraints();
  }

  @Override
  public RawBsonDocument probe(Object probeId, String versionField) {
    return plain.probe(probeId, versionField);
  }

  @Override
  public WriteResult update(Bson filter, BsonDocument update, boolean returnAfter) {
    Bson match = match(filter);
    if (writer == null) {
      return plain.update(match, update, returnAfter);
    }
    if (returnAfter) {
      return result(fenced(() -> writer.findOneAndUpdate(lock, id, match, update)));
    }
    return result(fenced(() -> writer.updateOne(lock, id, match, update)));
  }

  @Override
  public WriteResult update(Bson filter, BsonDocument guard, BsonDocument update) {
    // The guard stays whether or not the version is filtered: it is what makes the merged
    // write exact, not a check on who else wrote.
    Bson match = match(filter);
    Bson guarded = guard == null ? match
        : match == null ? guard : Store.withGuard(match, guard, plain.codecRegistry());
    if (writer == null) {
      return plain.update(guarded, update, false);
    }
    return result(fenced(() -> writer.updateOne(lock, id, guarded, update)));
  }

  @Override
  public WriteResult replace(Bson filter, Document replacement, boolean returnAfter) {
    Bson match = match(filter);
    if (writer == null) {
      return plain.replace(match, replacement, returnAfter);
    }
    // The batch's replacement may carry _id as a BsonValue; the writer keeps the stored _id.
    // The replacement is the caller's copy for this write (see Store#replace): no second copy.
    replacement.remove("_id");
    if (returnAfter) {
      return result(fenced(() -> writer.findOneAndReplace(lock, id, match, replacement)));
    }
    return result(fenced(() -> writer.replaceOne(lock, id, match, replacement)));
  }

  /**
   * What the write matches besides the fence. The batch's filter is {@code _id} and the
   * version read; unversioned, {@code _id} alone. The fenced writer adds {@code _id} itself.
   */
  private Bson match(Bson batchFilter) {
    if (shared.versioned()) {
      return batchFilter;
    }
    return writer == null ? Filters.eq("_id", id) : null;
  }

  private <T> T fenced(Supplier<T> call) {
    try {
      return call.get();
    } catch (StaleLockException e) {
      throw new FenceRefusal(e, shared.owner(), key);
    }
  }

  private static WriteResult result(Optional<Document> after) {
    return after.map(d -> new WriteResult(true, d)).orElse(WriteResult.MISSED);
  }

  private static WriteResult result(FencedWriter.Outcome outcome) {
    return outcome == FencedWriter.Outcome.APPLIED ? new WriteResult(true, null)
        : WriteResult.MISSED;
  }
}
