package io.writeguard.update;

import com.mongodb.client.MongoCollection;
import io.writeguard.Ticker;
import io.writeguard.atomic.AtomicUpdates;
import io.writeguard.combine.CombineInterruptedException;
import io.writeguard.combine.CombineTimeoutException;
import io.writeguard.combine.KeyedCombiner;
import io.writeguard.internal.Deadline;
import io.writeguard.internal.DocumentKey;
import io.writeguard.lock.LockService;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.typed.TypedDocuments;
import io.writeguard.version.InvalidVersionException;
import io.writeguard.version.VersionFieldException;
import io.writeguard.version.VersionPolicy;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.UnaryOperator;
import org.bson.Document;
import org.bson.codecs.configuration.CodecRegistry;

/**
 * Optimistic read-modify-write of one MongoDB document, safe against lost updates.
 *
 * <p>Each attempt reads the document, asks a pure {@link Mutator} for the change, and writes
 * it with a filter on the version it read, incrementing the version in the same atomic write:
 *
 * <pre>{@code
 * findOneAndUpdate({_id: id, version: v}, {<mutation>, $inc: {version: 1}}, AFTER)
 * }</pre>
 *
 * If another writer got there first the filter matches nothing; one read of {@code _id} and
 * version tells that conflict from a deletion, and a conflict is retried from a fresh read,
 * with full-jitter backoff, within the {@link RetryPolicy}'s attempts and deadline. MongoDB
 * makes each single-document write atomic, so no transaction and no lock are needed.
 *
 * <p>Outcomes: {@link UpdateOutcome} on success; otherwise, with nothing written,
 * {@link DocumentNotFoundException}, {@link DuplicateKeyWriteException},
 * {@link DocumentValidationException}, {@link RetriesExhaustedException},
 * {@link WriteOutcomeUnknownException} (the one case where a write may have happened),
 * {@link UpdateFailedException} for other server errors, {@link InvalidVersionException} for a
 * document whose stored version is unusable, {@link VersionFieldException} when a mutation
 * tries to write the version, and {@code IllegalArgumentException} for a malformed mutation.
 * An exception thrown by the mutator reaches the caller unchanged.
 *
 * <p>Events go to the {@link WriteGuardListener} with scope (collection, strategy name):
 * {@code onAttempt(n)} before attempt n, {@code onConflict(n)} when attempt n found the version
 * moved, {@code onRetry(n, backoff)} before sleeping after attempt n, then one of
 * {@code onSuccess}, {@code onExhausted} or {@code onFailure}.
 *
 * <p><b>Group commit</b> (on by default, {@link UpdaterBuilder#groupCommit(boolean)}): callers
 * of this updater that update the same {@code _id} at the same time queue up, and the first one
 * runs the queue as a batch: one read, every mutator in arrival order on the state the earlier
 * ones produced, one write filtered on the version read. Each caller still gets its own outcome
 * or exception, as if the updates had run one after another. A caller alone runs exactly the
 * loop above. See docs/optimistic-updates.md, "Group commit", for the rules; {@code onBatch}
 * reports each batch's size. With group commit a lost conflict is paced by contention
 * ({@link Builder#contentionPacing}): a backoff scaled to the round, and a round lost to
 * another writer's write is bounded by the deadline rather than counted as an attempt.
 *
 * <p>Thread-safe: one instance serves any number of threads.
 */
public final class VersionedUpdater implements Updater {
  private final UpdaterSettings settings;
  private final UpdateLoop loop;
  private final BatchUpdate batches;
  private final KeyedCombiner<BatchUpdate.Call, UpdateOutcome> combiner; // null: group commit off
  private final WriteGuardListener listener;
  private final String collection;
  private final CodecRegistry codecs;
  private final Store store; // what a LockedUpdater over the same documents writes (lockedBuilder)

  private VersionedUpdater(Builder b) {
    this.settings = b.settings();
    this.store = b.store;
    this.listener = WriteGuardListener.safe(settings.listener());
    this.collection = store.collectionName();
    this.codecs = store.codecRegistry();
    UpdateLoop blind = settings.loop(store, settings.listener());
    // Paced only with group commit: then a conflict is another process's (or updater's) round,
    // not one of this updater's own threads, which group commit already lines up.
    this.loop = b.contentionPacing && settings.groupCommit()
        ? blind.pacedBy(new ContentionPacing(settings.retryPolicy()))
        : blind;
    this.batches = settings.batches(loop, store, settings.listener());
    this.combiner = settings.groupCommitQueue(
        (key, batch) -> batches.run(((DocumentKey) key).id(), BatchUpdate.ofCalls(batch)));
  }

  private UpdateOutcome run(Object id, Mutator mutator, boolean returnAfter) {
    if (combiner == null || batches.runningHere()) {
      // Off, or called from inside a mutator of a batch (on this document or another): a
      // nested update runs by itself, as it would without group commit. Queued, it could wait
      // for a leader that waits for this thread.
      return loop.run(id, mutator, returnAfter);
    }
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(mutator, "mutator");
    try {
      // Queued no longer than the call's deadline: the same budget a lone call has.
      // Keyed as MongoDB tells documents apart, so one batch never mixes two documents.
      return combiner.submit(DocumentKey.of(id, codecs), new BatchUpdate.Call(mutator,
          returnAfter), Deadline.capWait(settings.retryPolicy().deadline()));
    } catch (CombineTimeoutException e) {
      // Withdrawn from the queue at its deadline: never taken, or handed back after attempts
      // that wrote nothing (KeyedCombiner.Batch#handBack).
      RetriesExhaustedException out = new RetriesExhaustedException(collection, id,
          e.attemptsMade(), e.waited(), RetriesExhaustedException.Budget.DEADLINE,
          OptionalLong.empty(), e);
      listener.onExhausted(loop.scope(), id, e.attemptsMade(), e.waited());
      throw out;
    } catch (CombineInterruptedException e) {
      listener.onFailure(loop.scope(), id, e); // withdrawn from the queue: its one last event
      throw e;
    }
  }

  /**
   * A builder for updates to {@code collection}, whose write concern must be acknowledged
   * (with {@code w: 0} a conflict cannot be told from a success).
   */
  public static Builder builder(MongoCollection<Document> collection) {
    Objects.requireNonNull(collection, "collection");
    if (!collection.getWriteConcern().isAcknowledged()) {
      throw new IllegalArgumentException("collection write concern must be acknowledged, was "
          + collection.getWriteConcern() + ": an unacknowledged write cannot tell a version"
          + " conflict from a success");
    }
    return new Builder(new MongoStore(collection));
  }

  /**
   * An updater with default settings for a collection of any document class its codecs map;
   * see {@link TypedUpdater}. {@code Document} collections work too.
   */
  public static <T> TypedUpdater<T> typed(MongoCollection<T> collection) {
    return typed(collection, b -> b);
  }

  /**
   * An updater for a collection of any document class its codecs map, with settings: e.g.
   * {@code typed(accounts, b -> b.groupCommit(false))}. It runs a Document-based updater over
   * the same collection, built by {@link #builder} and {@code settings}.
   *
   * @throws IllegalArgumentException as {@link #builder}, or if the collection's codecs cannot
   *     encode its document class
   */
  public static <T> TypedUpdater<T> typed(
      MongoCollection<T> collection, UnaryOperator<Builder> settings) {
    Objects.requireNonNull(settings, "settings");
    TypedDocuments<T> documents = TypedDocuments.of(collection);
    Builder builder = Objects.requireNonNull(
        settings.apply(builder(documents.documentView())), "settings returned null");
    return new TypedUpdater<>(builder.build(), documents);
  }

  /**
   * Updates document {@code id} with {@code findOneAndUpdate} / {@code findOneAndReplace} and
   * returns the document as written ({@code ReturnDocument.AFTER}).
   *
   * @throws UpdateFailedException (and subclasses) when nothing could be written, see above
   */
  @Override
  public UpdateOutcome update(Object id, Mutator mutator) {
    return run(id, mutator, true);
  }

  /**
   * Like {@link #update} with {@code updateOne} / {@code replaceOne}: one less document on the
   * wire, no document in the outcome. {@code matchedCount == 0} is the conflict signal.
   */
  @Override
  public UpdateOutcome updateOne(Object id, Mutator mutator) {
    return run(id, mutator, false);
  }

  /**
   * Runs a batch gathered by a caller's own {@link KeyedCombiner} (keyed by {@code _id}, by a
   * value whose Java equality is MongoDB's: an ObjectId, a String, a Long, not a
   * {@code Document} whose field order may vary) on
   * the calling thread, with group commit's rules: one read and one write per round, each
   * request answered with its {@link UpdateOutcome} or exception, or, when the calling
   * thread's own request was given up while others still retried, handed back to the queue
   * between two rounds ({@link KeyedCombiner.Batch#isHandedBack}) for a later batch, so that
   * the calling thread returns as a lone call would. Meant for a lock holder:
   * a combiner step that takes the document's lock and calls this pays one lock hand-off and
   * one read/write for the whole batch. The version filter still guards every write, so the
   * lock is never what keeps an update from being lost.
   *
   * <p>The combiner must use this updater's {@link Ticker} (both default to
   * {@code System.nanoTime}): each request's deadline counts from its
   * {@link KeyedCombiner.Batch#submittedNanos}.
   *
   * @param returnDocuments true: outcomes carry the document as written (as {@link #update});
   *     false: as {@link #updateOne}
   */
  public void updateBatch(KeyedCombiner.Batch<? extends Mutator, UpdateOutcome> batch,
      boolean returnDocuments) {
    Objects.requireNonNull(batch, "batch");
    Object id = batch.key() instanceof DocumentKey key ? key.id() : batch.key();
    batches.run(id, BatchUpdate.of(batch, returnDocuments));
  }

  /**
   * A {@link LockedUpdater} builder for the same documents with this updater's version policy,
   * retry policy, listener, strategy name, clock, sleeper and jitter, and the version filter on.
   */
  LockedUpdater.Builder lockedBuilder(LockService locks) {
    if (!(store instanceof MongoStore mongo)) {
      throw new IllegalStateException("a LockedUpdater needs a MongoDB collection; this"
          + " updater writes to " + store.getClass().getSimpleName());
    }
    return LockedUpdater.builder(mongo.collection(), locks).writingAs(settings)
        .versionFilter(true);
  }

  /** The settings it was built with (for tests). */
  UpdaterSettings settings() {
    return settings;
  }

  /** Updates of {@code id} queued for the next batch (for tests). */
  int waiting(Object id) {
    return combiner == null ? 0 : combiner.waiting(DocumentKey.of(id, codecs));
  }

  /** Whether concurrent updates of one document are combined (see the class comment). */
  public boolean groupCommit() {
    return combiner != null;
  }

  public VersionPolicy versionPolicy() {
    return settings.versionPolicy();
  }

  /** The codecs of the updater's collection (how its ids and documents are encoded). */
  public CodecRegistry codecRegistry() {
    return codecs;
  }

  /**
   * Atomic operators bound to this updater's version policy: the safe way to write the same
   * documents without a read ({@code $inc}, {@code $addToSet}, ...), since each also raises
   * the version and so makes a concurrent update of this updater re-read instead of erasing it.
   */
  public AtomicUpdates.Versioned atomicUpdates() {
    return AtomicUpdates.versioned(settings.versionPolicy());
  }

  public RetryPolicy retryPolicy() {
    return settings.retryPolicy();
  }

  /** The collection and strategy name this updater reports events under. */
  public OperationScope scope() {
    return loop.scope();
  }

  /**
   * Configures a {@link VersionedUpdater}: the settings of {@link UpdaterBuilder}, with the
   * strategy name {@code optimistic} by default. Not thread-safe.
   */
  public static final class Builder extends UpdaterBuilder<Builder> {
    private final Store store;
    private boolean contentionPacing = true;

    Builder(Store store) {
      super("optimistic");
      this.store = store;
    }

    /**
     * Whether group commit's retries are paced by contention (default true): after a lost
     * version conflict a batch backs off within about one of its own rounds (doubling per
     * retry, never beyond the {@link RetryPolicy}'s window), and a round lost to another
     * writer's write (the version moved) does not count against
     * {@link RetryPolicy#maxAttempts()}: the call's deadline bounds those. False: the policy's
     * full-jitter backoff, and every attempt counts. Without group commit there is no pacing.
     * See docs/optimistic-updates.md, "Pacing across processes".
     */
    public Builder contentionPacing(boolean on) {
      this.contentionPacing = on;
      return this;
    }

    public VersionedUpdater build() {
      return new VersionedUpdater(this);
    }
  }
}
