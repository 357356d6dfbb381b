package io.writeguard.update;

import com.mongodb.client.MongoCollection;
import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.internal.Checks;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.path.AtomicUpdates;
import io.writeguard.version.InvalidVersionException;
import io.writeguard.version.VersionFieldException;
import io.writeguard.version.VersionPolicy;
import java.util.Objects;
import java.util.random.RandomGenerator;
import org.bson.Document;

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
 * <p>Thread-safe: one instance serves any number of threads.
 */
public final class VersionedUpdater {
  private final UpdateLoop loop;
  private final VersionPolicy versionPolicy;
  private final RetryPolicy retryPolicy;

  private VersionedUpdater(Builder b) {
    this.versionPolicy = b.versionPolicy;
    this.retryPolicy = b.retryPolicy;
    this.loop = new UpdateLoop(b.store, b.versionPolicy, b.retryPolicy, b.listener,
        b.strategyName, b.ticker, b.sleeper, b.random);
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
   * Updates document {@code id} with {@code findOneAndUpdate} / {@code findOneAndReplace} and
   * returns the document as written ({@code ReturnDocument.AFTER}).
   *
   * @throws UpdateFailedException (and subclasses) when nothing could be written, see above
   */
  public UpdateOutcome update(Object id, Mutator mutator) {
    return loop.run(id, mutator, true);
  }

  /**
   * Like {@link #update} with {@code updateOne} / {@code replaceOne}: one less document on the
   * wire, no document in the outcome. {@code matchedCount == 0} is the conflict signal.
   */
  public UpdateOutcome updateOne(Object id, Mutator mutator) {
    return loop.run(id, mutator, false);
  }

  public VersionPolicy versionPolicy() {
    return versionPolicy;
  }

  /**
   * Atomic operators bound to this updater's version policy: the safe way to write the same
   * documents without a read ({@code $inc}, {@code $addToSet}, ...), since each also raises
   * the version and so makes a concurrent update of this updater re-read instead of erasing it.
   */
  public AtomicUpdates.Versioned atomicUpdates() {
    return AtomicUpdates.versioned(versionPolicy);
  }

  public RetryPolicy retryPolicy() {
    return retryPolicy;
  }

  /** The collection and strategy name this updater reports events under. */
  public OperationScope scope() {
    return loop.scope();
  }

  /** Configures a {@link VersionedUpdater}; not thread-safe. */
  public static final class Builder {
    private final Store store;
    private VersionPolicy versionPolicy = VersionPolicy.defaults();
    private RetryPolicy retryPolicy = RetryPolicy.defaults();
    private WriteGuardListener listener = WriteGuardListener.NOOP;
    private String strategyName = "optimistic";
    private Ticker ticker = Ticker.system();
    private Sleeper sleeper = Sleeper.system();
    private RandomGenerator random;

    Builder(Store store) {
      this.store = store;
    }

    public Builder versionPolicy(VersionPolicy versionPolicy) {
      this.versionPolicy = Objects.requireNonNull(versionPolicy, "versionPolicy");
      return this;
    }

    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
      return this;
    }

    /** Receives attempt/conflict/retry/outcome events; whatever it throws is logged, ignored. */
    public Builder listener(WriteGuardListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** The strategy named in events' {@link OperationScope} (default {@code optimistic}). */
    public Builder strategyName(String strategyName) {
      this.strategyName = Checks.notBlank("strategyName", strategyName);
      return this;
    }

    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
      return this;
    }

    /**
     * The source of backoff jitter; it is shared by every thread that uses the updater, so it
     * must be thread-safe (e.g. {@code new java.util.Random(seed)}). Default: each thread's
     * {@code ThreadLocalRandom}.
     */
    public Builder random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    public VersionedUpdater build() {
      return new VersionedUpdater(this);
    }
  }
}
