package io.writeguard.lock;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.exists;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndReplaceOptions;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import io.writeguard.internal.BoundedViews;
import io.writeguard.internal.Checks;
import io.writeguard.internal.OneCopyRawCodec;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.typed.TypedDocuments;
import io.writeguard.version.VersionPolicy;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.UnaryOperator;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.conversions.Bson;

/**
 * Runs single-document writes under a {@link LockHandle}, fenced by its token (see
 * {@link Fencing}), and tells apart the three reasons a fenced write can match nothing:
 *
 * <ul>
 *   <li>the document was written under a newer token: {@link StaleLockException}, the listener
 *       hears {@code onFencedRejection}, nothing was written;
 *   <li>the document does not exist: {@link Outcome#NOT_FOUND};
 *   <li>your extra filter did not match: {@link Outcome#FILTER_NOT_MATCHED}.
 * </ul>
 *
 * <p>A handle that already knows its lease is lost is refused before anything is sent, and so is a
 * {@link PathLockHandle} on some paths only (other paths' holders write at the same time with
 * other tokens, so one fence per document cannot tell them from stale holders). To make a
 * read-change-write safe against a holder that lost its lease <i>before</i> you read, read with
 * {@link #claim}: it raises the fence to your token as it reads, so the old holder's write
 * arriving later is refused even if you never write.
 *
 * <p><b>Versioned collections.</b> A fenced write filters on the fence, not on a version, so
 * on a collection that a {@code VersionedUpdater} (or {@code AdaptiveUpdater}) also writes it
 * must raise the version, or an updater that read the document before it writes back what it
 * read and erases it. Build the writer with {@link Builder#versionPolicy}: then every write it
 * makes ({@link #claim} too, which moves the fence) adds {@code $inc} of the version, and
 * {@link #replaceOne} replaces only the version the replacement was read at (as
 * {@code VersionedUpdater} does) and stores it plus one. Without a policy nothing but the
 * fence and your change is written.
 *
 * <p>Errors of the write itself (network, validation) reach you as the driver's
 * {@link MongoException}; none is retried. Immutable and thread-safe.
 */
public final class FencedWriter {

  /** What a fenced write did, when it was not refused as stale. */
  public enum Outcome {
    /** Matched and applied (or upserted). */
    APPLIED,
    /** No document with that {@code _id}. */
    NOT_FOUND,
    /** The document exists and the fence allowed the write, but the extra filter did not match. */
    FILTER_NOT_MATCHED
  }

  private static final FindOneAndUpdateOptions AFTER =
      new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER);
  private static final FindOneAndReplaceOptions REPLACE_AFTER =
      new FindOneAndReplaceOptions().returnDocument(ReturnDocument.AFTER);

  private final MongoCollection<Document> collection;
  /** The same collection answering with the stored bytes ({@link #findOneAndUpdateRaw}). */
  private final BoundedViews<RawBsonDocument> raw;
  /** The collection as each operation's deadline bounds it (views reused, as the update loop's). */
  private final BoundedViews<Document> documents;
  private final String fenceField;
  private final FencedBson bson;
  private final WriteGuardListener listener;
  private final OperationScope scope;
  private final VersionPolicy versionPolicy;

  private FencedWriter(Builder b) {
    this.collection = b.collection;
    this.raw = new BoundedViews<>(OneCopyRawCodec.rawView(b.collection)); // as the loop reads
    this.documents = new BoundedViews<>(b.collection);
    this.versionPolicy = b.versionPolicy;
    this.fenceField = b.fenceField;
    this.bson = new FencedBson(b.collection.getCodecRegistry(), b.fenceField);
    this.listener = WriteGuardListener.safe(b.listener);
    this.scope = new OperationScope(b.collection.getNamespace().getCollectionName(), b.strategy);
  }

  /** A writer with the default fence field {@value Fencing#FIELD} and no listener. */
  public static FencedWriter of(MongoCollection<Document> collection) {
    return builder(collection).build();
  }

  public static Builder builder(MongoCollection<Document> collection) {
    return new Builder(Objects.requireNonNull(collection, "collection must not be null"));
  }

  /** A typed writer with default settings; see {@link TypedFencedWriter}. */
  public static <T> TypedFencedWriter<T> typed(MongoCollection<T> collection) {
    return typed(collection, b -> b);
  }

  /**
   * A writer for a collection of any document class its codecs map, with settings applied
   * to the builder of the Document-based writer it runs: e.g. {@code typed(accounts, b ->
   * b.versionPolicy(VersionPolicy.defaults()))}.
   *
   * @throws IllegalArgumentException if the collection's codecs cannot encode its class
   */
  public static <T> TypedFencedWriter<T> typed(
      MongoCollection<T> collection, UnaryOperator<Builder> settings) {
    Objects.requireNonNull(settings, "settings must not be null");
    TypedDocuments<T> documents = TypedDocuments.of(collection);
    Builder builder = Objects.requireNonNull(
        settings.apply(builder(documents.documentView())), "settings returned null");
    return new TypedFencedWriter<>(builder.build(), documents,
        builder.versionPolicy == null ? null : builder.versionPolicy.field());
  }

  /**
   * Reads document {@code id} and raises its fence to the lock's token in one atomic step.
   * From then on, writes with a lower token are refused, even those of a holder whose lease ran
   * out before this read.
   *
   * @return the document (fence raised), or empty if there is none
   * @throws StaleLockException if a newer token has already claimed or written it
   */
  public Optional<Document> claim(LockHandle lock, Object id) {
    checkUsable(lock, id);
    Bson raiseFence = bson.raise(lock.token());
    // With a version: a replace by a VersionedUpdater that read the old fence must not write
    // it back (that would lower the fence), so moving the fence moves the version too.
    Bson update = versionPolicy == null
        ? raiseFence : Updates.combine(raiseFence, versionPolicy.increment());
    Document doc = documents.forWrite().findOneAndUpdate(fenced(lock, id, null), update, AFTER);
    if (doc != null) {
      return Optional.of(doc);
    }
    classifyMiss(lock, id, false);
    return Optional.empty();
  }

  /** {@code updateOne} of document {@code id}, fenced. */
  public Outcome updateOne(LockHandle lock, Object id, Bson update) {
    return updateOne(lock, id, null, update);
  }

  /** {@code updateOne} of document {@code id} that also matches {@code filter}, fenced. */
  public Outcome updateOne(LockHandle lock, Object id, Bson filter, Bson update) {
    checkUsable(lock, id);
    Bson fencedUpdate = bson.update(raisingVersion(update), lock.token());
    if (documents.forWrite().updateOne(fenced(lock, id, filter), fencedUpdate).getMatchedCount() == 1) {
      return Outcome.APPLIED;
    }
    return classifyMiss(lock, id, filter != null);
  }

  /**
   * Updates document {@code id}, or inserts it if it does not exist, fenced. An existing
   * document with a higher fence makes the insert collide on {@code _id}: that is reported as
   * stale, not as a duplicate.
   */
  public void upsertOne(LockHandle lock, Object id, Bson update) {
    checkUsable(lock, id);
    Bson fencedUpdate = bson.update(raisingVersion(update), lock.token());
    try {
      documents.forWrite().updateOne(fenced(lock, id, null), fencedUpdate, new UpdateOptions().upsert(true));
    } catch (MongoException e) {
      if (MongoLockStore.isDuplicateKey(e)) {
        classifyMiss(lock, id, false); // throws if stale
      }
      throw e;
    }
  }

  /**
   * Replaces document {@code id}, fenced; the stored replacement carries {@code _fence: token}.
   *
   * @throws IllegalArgumentException if the replacement has a different {@code _id}
   */
  public Outcome replaceOne(LockHandle lock, Object id, Document replacement) {
    return replaceOne(lock, id, null, replacement);
  }

  /**
   * Replaces document {@code id} if it also matches {@code filter} (e.g. the version read),
   * fenced; {@link Outcome#FILTER_NOT_MATCHED} when the fence allowed the write but the filter
   * did not match. With a {@linkplain Builder#versionPolicy version policy} the replacement's
   * version is the version it was read at: only that version is replaced
   * ({@link Outcome#FILTER_NOT_MATCHED} if another writer moved it), and it is stored plus one.
   *
   * @throws IllegalArgumentException if the replacement has a different {@code _id}
   * @throws io.writeguard.version.InvalidVersionException (versioned) if the replacement's
   *     version is unusable, or missing while the policy refuses legacy documents
   */
  public Outcome replaceOne(LockHandle lock, Object id, Bson filter, Document replacement) {
    Replacing r = replacing(lock, id, filter, replacement);
    if (documents.forWrite().replaceOne(fenced(lock, id, r.match), r.stored).getMatchedCount() == 1) {
      return Outcome.APPLIED;
    }
    return classifyMiss(lock, id, r.match != null);
  }

  /**
   * As {@link #replaceOne(LockHandle, Object, Bson, Document)} with {@code findOneAndReplace},
   * returning the document as stored.
   *
   * @return the stored document, or empty if there is none or {@code filter} did not match
   */
  public Optional<Document> findOneAndReplace(LockHandle lock, Object id, Bson filter,
      Document replacement) {
    Replacing r = replacing(lock, id, filter, replacement);
    Document doc = documents.forWrite().findOneAndReplace(fenced(lock, id, r.match), r.stored,
        REPLACE_AFTER);
    if (doc != null) {
      return Optional.of(doc);
    }
    classifyMiss(lock, id, r.match != null);
    return Optional.empty();
  }

  /** What a fenced replace matches (besides {@code _id} and the fence) and stores. */
  private record Replacing(Bson match, Document stored) {}

  private Replacing replacing(LockHandle lock, Object id, Bson filter, Document replacement) {
    Objects.requireNonNull(replacement, "replacement must not be null");
    if (replacement.containsKey("_id") && !Objects.equals(replacement.get("_id"), id)) {
      throw new IllegalArgumentException("replacement _id must be " + id + ", was " + replacement.get("_id"));
    }
    checkUsable(lock, id);
    Document stored = Fencing.fencedReplacement(replacement, fenceField, lock.token());
    Bson match = filter;
    if (versionPolicy != null) {
      OptionalLong read = versionPolicy.expectedVersion(id,
          replacement.toBsonDocument(BsonDocument.class, collection.getCodecRegistry()));
      Bson sameVersion = read.isPresent()
          ? eq(versionPolicy.field(), read.getAsLong())
          : exists(versionPolicy.field(), false);
      match = filter == null ? sameVersion : and(filter, sameVersion);
      stored.put(versionPolicy.field(), read.orElse(VersionPolicy.INITIAL_VERSION) + 1);
    }
    return new Replacing(match, stored);
  }

  /**
   * {@code findOneAndUpdate} of document {@code id}, fenced, returning the document after the
   * update.
   *
   * @return the updated document, or empty if there is none
   */
  public Optional<Document> findOneAndUpdate(LockHandle lock, Object id, Bson update) {
    return findOneAndUpdate(lock, id, null, update);
  }

  /**
   * {@code findOneAndUpdate} of document {@code id} that also matches {@code filter}, fenced,
   * returning the document after the update.
   *
   * @return the updated document, or empty if there is none or {@code filter} did not match
   */
  public Optional<Document> findOneAndUpdate(LockHandle lock, Object id, Bson filter,
      Bson update) {
    return findOneAndUpdate(documents, lock, id, filter, update);
  }

  /**
   * As {@link #findOneAndUpdate(LockHandle, Object, Bson, Bson)}, returning the document after
   * the update as the server sent it, undecoded: for a caller that reads a few fields of it, or
   * decodes it with codecs of its own, and would otherwise pay for a {@link Document} it does
   * not use. The same command is sent, fenced and refused the same way.
   *
   * @return the updated document's bytes, or empty if there is none or {@code filter} did not
   *     match
   * @throws StaleLockException if a newer token has already claimed or written it
   */
  public Optional<RawBsonDocument> findOneAndUpdateRaw(LockHandle lock, Object id, Bson filter,
      Bson update) {
    return findOneAndUpdate(raw, lock, id, filter, update);
  }

  private <T> Optional<T> findOneAndUpdate(BoundedViews<T> target, LockHandle lock, Object id,
      Bson filter, Bson update) {
    checkUsable(lock, id);
    Bson fencedUpdate = bson.update(raisingVersion(update), lock.token());
    T doc = target.forWrite().findOneAndUpdate(fenced(lock, id, filter), fencedUpdate, AFTER);
    if (doc != null) {
      return Optional.of(doc);
    }
    classifyMiss(lock, id, filter != null);
    return Optional.empty();
  }

  private Bson raisingVersion(Bson update) {
    return versionPolicy == null ? update : versionPolicy.raising(update);
  }

  /** {@code _id} and {@code extra} (if any), fenced ({@link Fencing#fencedFilter}). */
  private Bson fenced(LockHandle lock, Object id, Bson extra) {
    return bson.filter(id, extra, lock.token());
  }

  private void checkUsable(LockHandle lock, Object id) {
    Objects.requireNonNull(lock, "lock must not be null");
    Objects.requireNonNull(id, "id must not be null");
    if (lock instanceof PathLockHandle path && !path.isWholeDocument()) {
      // Holders of disjoint paths hold at once, with different tokens, so one document fence
      // would refuse whichever of them writes after the other, though neither lost its lock.
      throw new IllegalArgumentException("a path lock cannot fence a document: " + path
          + " may be held together with locks on other paths of the document; fence with a"
          + " whole-document lock, or write without fencing (in-process locks never lose their lease)");
    }
    if (lock.isReleased()) {
      throw new IllegalStateException("lock '" + lock.key() + "' (token " + lock.token()
          + ") was released; acquire it again before writing _id=" + id);
    }
    if (lock.isLost()) {
      listener.onFencedRejection(scope, id, lock.token());
      throw StaleLockException.leaseLost(collection.getNamespace().getFullName(), id, lock.key(), lock.token());
    }
  }

  /** Why a fenced write matched nothing; throws if the reason is a newer token. */
  private Outcome classifyMiss(LockHandle lock, Object id, boolean hadExtraFilter) {
    Document current = documents.forRead().find(eq("_id", id)).projection(Projections.include(fenceField)).first();
    if (current == null) {
      return Outcome.NOT_FOUND;
    }
    Object fence = current.get(fenceField);
    if (fence != null && !(fence instanceof Number)) {
      throw new IllegalStateException("document _id=" + id + " in " + collection.getNamespace().getFullName()
          + " has a non-numeric fence field " + fenceField + ": " + Checks.quote(fence));
    }
    if (fence != null && ((Number) fence).longValue() > lock.token()) {
      listener.onFencedRejection(scope, id, lock.token());
      throw new StaleLockException(collection.getNamespace().getFullName(), id, lock.token());
    }
    // Fence allows us: either our own filter missed, or the document appeared after our write.
    return hadExtraFilter ? Outcome.FILTER_NOT_MATCHED : Outcome.NOT_FOUND;
  }

  /** Not thread-safe; {@link #build()} copies the settings into an immutable writer. */
  public static final class Builder {
    private final MongoCollection<Document> collection;
    private String fenceField = Fencing.FIELD;
    private WriteGuardListener listener = WriteGuardListener.NOOP;
    private String strategy = "lock";
    private VersionPolicy versionPolicy;

    private Builder(MongoCollection<Document> collection) {
      this.collection = collection;
    }

    /** The field that remembers the highest token; default {@value Fencing#FIELD}. */
    public Builder fenceField(String fenceField) {
      this.fenceField = Fencing.checkField(fenceField);
      return this;
    }

    /** Hears {@code onFencedRejection}; what it throws is logged and ignored. */
    public Builder listener(WriteGuardListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener must not be null");
      return this;
    }

    /** The strategy name in the listener's {@link OperationScope}; default {@code lock}. */
    public Builder strategy(String strategy) {
      this.strategy = Checks.notBlank("strategy", strategy);
      return this;
    }

    /**
     * The collection is versioned (a {@code VersionedUpdater} writes it too): every write also
     * raises {@code policy}'s version field, and an update that writes that field itself is
     * refused ({@link io.writeguard.version.VersionFieldException}). Default: none.
     */
    public Builder versionPolicy(VersionPolicy policy) {
      this.versionPolicy = Objects.requireNonNull(policy, "versionPolicy must not be null");
      return this;
    }

    public FencedWriter build() {
      if (versionPolicy != null && versionPolicy.field().equals(fenceField)) {
        throw new IllegalArgumentException("fenceField and the version field must differ, both"
            + " were " + Checks.quote(fenceField));
      }
      return new FencedWriter(this);
    }
  }
}
