package io.writeguard.update;

import com.mongodb.MongoNamespace;
import com.mongodb.client.MongoCollection;
import io.writeguard.combine.CombineInterruptedException;
import io.writeguard.combine.CombineTimeoutException;
import io.writeguard.combine.KeyedCombiner;
import io.writeguard.internal.Checks;
import io.writeguard.internal.Deadline;
import io.writeguard.internal.DocumentKey;
import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.Fencing;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.lock.StaleLockException;
import io.writeguard.lock.UnderLock;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.bson.BsonDocument;
import org.bson.Document;

/**
 * Read-modify-write of one MongoDB document under a lock: take the document's lock, read,
 * let a pure {@link Mutator} decide the change, write, release. Any {@link LockService} works:
 * in-process for one process, a MongoDB or Redis lease lock for several.
 *
 * <p>Why it is built this way. A lock strategy done by hand pays, per update, a lock hand-off,
 * a read and a write, one caller after another; on a hot document that queue is the whole
 * cost. Here the callers of this process that update the same document at the same time queue
 * up (group commit, on by default), and the first of them takes the lock <em>once</em> for the
 * whole queue, reads once, applies every mutator in arrival order to the state the earlier ones
 * produced, and writes once; each caller still gets its own {@link UpdateOutcome} or exception,
 * as if they had run one after another. Callers in other processes meet at the lock as usual.
 * The batch rules are those of {@link VersionedUpdater}'s group commit (docs/locks.md,
 * "LockedUpdater"): a mutator that throws fails only its caller; a write whose outcome is
 * unknown fails the callers it carried ({@link WriteOutcomeUnknownException}) and nobody else.
 *
 * <p>What guards the write, besides the lock:
 *
 * <ul>
 *   <li><b>The fence</b> (on by default): the read is a claim that raises the document's fence
 *       to the lock's token and its version by one, and every write is filtered on the fence, so
 *       a holder whose lease ran out during a pause is refused by MongoDB itself. A refused
 *       caller wrote nothing; it takes the lock again and starts over, at most
 *       {@value #MAX_FENCED_REJECTIONS} times, then gets the {@link StaleLockException} (at
 *       once when it ran nested, under a lock its thread already held). The
 *       claim touches only a document whose version the policy accepts.
 *   <li><b>The version</b> (on by default): the write also filters on the version read and
 *       raises it, so writers that bypass the lock ({@link VersionedUpdater}, versioned atomic
 *       operators, a script) are never erased: their write shows up as a conflict, and the
 *       holder re-reads under the same lock, within the {@link RetryPolicy}. Off
 *       ({@link Builder#versionFilter}), the version is still raised but only the lock and the
 *       fence stand between two writers.
 * </ul>
 *
 * <p>Callers queue and lock by the document's identity as MongoDB sees it ({@code 7} and
 * {@code 7L} are one document; two {@code Document} ids with their fields in another order are
 * two). A leader whose batch holds other callers' updates sets its interrupt aside until the
 * batch is done and the lock released; a caller interrupted while queued is withdrawn, and a
 * leader running only its own update is stopped by its interrupt.
 *
 * <p>Failures: {@link LockTimeoutException} (the lock was not had within
 * {@link Builder#lockWait}, or the queue ahead did not clear within the lock wait plus the
 * retry policy's deadline), {@code LockBackendException}, {@link StaleLockException}, and the
 * exceptions of {@link VersionedUpdater}. A lock whose release fails after the write was applied
 * does not turn the applied write into an error (the lease frees itself).
 *
 * <p>Thread-safe: one instance serves any number of threads.
 */
public final class LockedUpdater implements Updater {
  /** How often one update takes the lock again after the fence refused it. */
  public static final int MAX_FENCED_REJECTIONS = 3;

  private final MongoStore store;
  private final UpdateLoop loop;
  private final BatchUpdate batches;
  private final LockService locks;
  private final FencedWriter writer; // null: unfenced
  private final String fenceField;
  private final boolean versioned;
  private final KeyedCombiner<BatchUpdate.Call, UpdateOutcome> combiner; // null: off
  private final Duration lockWait;
  /** One call's budget: the lock wait plus the retry policy's deadline (see {@link #run}). */
  private final Duration budget;
  private final String lockPrefix;
  private final UpdaterSettings settings;
  private final WriteGuardListener listener;
  private final MongoNamespace namespace;
  private final LockedStore.Shared stores;

  private LockedUpdater(Builder b) {
    this.settings = b.settings();
    this.store = new MongoStore(b.collection);
    this.namespace = b.collection.getNamespace();
    this.locks = b.locks;
    this.lockWait = b.lockWait;
    this.budget = sumOrForever(lockWait, settings.retryPolicy().deadline());
    this.lockPrefix = b.lockPrefix != null ? b.lockPrefix : store.collectionName() + ":";
    this.listener = WriteGuardListener.safe(settings.listener());
    this.versioned = b.versionFilter;
    this.fenceField = b.fenceField;
    this.writer = !b.fenced ? null : FencedWriter.builder(b.collection).fenceField(b.fenceField)
        .listener(settings.listener()).strategy(settings.strategyName()).build();
    this.stores = LockedStore.Shared.of(store, this, writer, settings.versionPolicy(), versioned);
    // The batch engine reports every outcome but a fence refusal this updater retries.
    WriteGuardListener engine = new RetriedRefusalsUnheard();
    this.loop = settings.loop(store, engine);
    this.batches = settings.batches(loop, store, engine);
    this.combiner = settings.groupCommitQueue(this::runBatch);
  }

  /**
   * A builder for updates of {@code collection} (write concern acknowledged) under
   * {@code locks}, keyed {@code <collection name>:<_id>} unless {@link Builder#lockPrefix} says
   * otherwise.
   */
  public static Builder builder(MongoCollection<Document> collection, LockService locks) {
    return new Builder(collection, locks);
  }

  /**
   * A builder for updates, under {@code locks}, of the documents {@code updater} writes, with
   * its version policy, retry policy, listener, strategy name, clock, sleeper and jitter; the
   * rest (lock wait, prefix, fencing, group commit) as {@link #builder(MongoCollection,
   * LockService)}. With {@link Builder#fencing} off, the version filter is the fence, as it is
   * for {@code updater}'s own writes: the two can update the same documents at the same time
   * and neither erases the other ({@link io.writeguard.adaptive.AdaptiveUpdater}'s locked
   * route is built this way).
   *
   * @throws IllegalStateException if {@code updater} does not write to a MongoDB collection
   */
  public static Builder builder(VersionedUpdater updater, LockService locks) {
    Objects.requireNonNull(updater, "updater");
    return updater.lockedBuilder(Objects.requireNonNull(locks, "locks"));
  }

  /**
   * A typed locked updater with default settings over {@code updater}'s collection: the typed
   * twin of {@link #builder(VersionedUpdater, LockService)}, as
   * {@link io.writeguard.adaptive.AdaptiveUpdater#typed} is for the adaptive updater.
   */
  public static <T> TypedDocumentUpdater<T> typed(TypedUpdater<T> updater, LockService locks) {
    return typed(updater, locks, b -> b);
  }

  /**
   * A typed locked updater over {@code updater}'s collection, with settings applied to the
   * builder of the Document-based one it runs: e.g. {@code typed(u, locks, b ->
   * b.lockWait(Duration.ofSeconds(2)))}.
   */
  public static <T> TypedDocumentUpdater<T> typed(TypedUpdater<T> updater, LockService locks,
      UnaryOperator<Builder> settings) {
    Objects.requireNonNull(updater, "updater");
    Objects.requireNonNull(settings, "settings");
    Builder builder = Objects.requireNonNull(
        settings.apply(builder(updater.untyped(), locks)), "settings returned null");
    return TypedDocumentUpdater.over(builder.build(), updater.documents(),
        updater.versionPolicy().field());
  }

  /**
   * Updates document {@code id} under its lock and returns the document as written.
   *
   * @throws LockTimeoutException if the lock was not had in time (nothing written)
   * @throws StaleLockException if the fence refused this update {@value #MAX_FENCED_REJECTIONS}
   *     times (nothing written)
   * @throws UpdateFailedException (and subclasses) as {@link VersionedUpdater#update}
   */
  @Override
  public UpdateOutcome update(Object id, Mutator mutator) {
    return run(id, mutator, true);
  }

  /** Like {@link #update} with {@code updateOne} / {@code replaceOne}: no document returned. */
  @Override
  public UpdateOutcome updateOne(Object id, Mutator mutator) {
    return run(id, mutator, false);
  }

  /** Whether concurrent updates of one document share one lock hold (see the class comment). */
  public boolean groupCommit() {
    return combiner != null;
  }

  /** Updates of {@code id} queued in this process for the next lock hold (monitoring, tests). */
  public int waiting(Object id) {
    return combiner == null ? 0
        : combiner.waiting(target(DocumentKey.of(id, store.codecRegistry())));
  }

  /** The settings it was built with (for tests). */
  UpdaterSettings settings() {
    return settings;
  }

  /** The collection and strategy name this updater reports events under. */
  public OperationScope scope() {
    return loop.scope();
  }

  private UpdateOutcome run(Object id, Mutator mutator, boolean returnAfter) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(mutator, "mutator");
    // Keyed as MongoDB tells documents apart: the same document is one queue and one lock,
    // whatever Java type its id came in, and two documents never share a batch.
    LockTarget target = target(DocumentKey.of(id, store.codecRegistry()));
    Mutator checked = writer == null ? mutator : leavingTheFence(mutator);
    // The lock wait, the update under it and the release share one budget (see Deadline).
    return Deadline.within(Deadline.after(budget),
        () -> runWithin(id, target, checked, returnAfter, budget));
  }

  /**
   * {@code a + b}, or the longest {@link Duration} when that does not fit: a lock wait that long
   * ({@code ChronoUnit.FOREVER}) waits as if forever, as every lock service takes it.
   */
  private static Duration sumOrForever(Duration a, Duration b) {
    try {
      return a.plus(b);
    } catch (ArithmeticException forever) {
      return ChronoUnit.FOREVER.getDuration();
    }
  }

  private UpdateOutcome runWithin(Object id, LockTarget target, Mutator checked,
      boolean returnAfter, Duration budget) {
    int rejections = 0;
    while (true) {
      try {
        return once(target, checked, returnAfter, budget).afterFencedRejections(rejections);
      } catch (LockedStore.FenceRefusal e) {
        if (!e.refuses(this, target.document)) {
          throw e; // a mutator's own (a nested update of another document): unchanged
        }
        // Refused by the fence: a newer holder claimed the document, so this update wrote
        // nothing and may run again, under a lock taken afresh. Not when it ran under a lock
        // its thread already holds (nested): that lock is all it can have, and the same fence
        // would refuse it again.
        boolean lent = LockHolds.current().lock(locks, target.lockKey) != null;
        if (lent || ++rejections >= MAX_FENCED_REJECTIONS) {
          listener.onFailure(scope(), id, e);
          throw e;
        }
        listener.onRetry(scope(), id, rejections, Duration.ZERO);
      }
    }
  }

  private UpdateOutcome once(LockTarget target, Mutator mutator, boolean returnAfter,
      Duration budget) {
    DocumentKey key = target.document;
    LockHolds holds = LockHolds.current();
    if (holds.holds(locks, namespace, key)) {
      IllegalStateException nested = new IllegalStateException("a mutator updated _id=" + key
          + " of " + namespace + " while an update of that document held its lock on the same"
          + " thread; mutators must be pure");
      listener.onFailure(scope(), key.id(), nested);
      throw nested;
    }
    LockHandle alreadyHeld = holds.lock(locks, target.lockKey);
    if (alreadyHeld != null) {
      // Nested, of another document with the same lock key on the same service (through this
      // updater or another): this thread holds that lock, which is not reentrant, so the
      // update runs under it (fenced by its token) rather than wait for itself.
      return holdingWhile(target, alreadyHeld,
          () -> loop.on(storeFor(key, alreadyHeld)).run(key.id(), mutator, returnAfter));
    }
    if (combiner == null || holds.holdsAnyDocument()) {
      // Off, or a mutator updating another document from inside a hold: alone, since queued
      // it could wait for a leader that waits for this thread.
      LockHandle lock = acquire(target);
      return holdingWhile(target, lock, () -> UnderLock.run(lock,
          () -> loop.on(storeFor(key, lock)).run(key.id(), mutator, returnAfter)));
    }
    // Queued no longer than the caller's own deadline (set by run) allows.
    Duration maxWait = Deadline.capWait(budget);
    try {
      return combiner.submit(target, new BatchUpdate.Call(mutator, returnAfter), maxWait);
    } catch (CombineTimeoutException e) {
      if (e.attemptsMade() > 0) {
        // Had the lock in a batch that handed it back after attempts that wrote nothing,
        // then queued past its deadline: given up, as a lone update out of time is.
        RetriesExhaustedException out = new RetriesExhaustedException(store.collectionName(),
            key.id(), e.attemptsMade(), e.waited(), RetriesExhaustedException.Budget.DEADLINE,
            OptionalLong.empty(), e);
        listener.onExhausted(scope(), key.id(), e.attemptsMade(), e.waited());
        throw out;
      }
      LockTimeoutException timeout = new LockTimeoutException(locks.backend(), target.lockKey,
          maxWait, combiner.waiting(target));
      listener.onFailure(scope(), key.id(), timeout);
      throw timeout;
    } catch (CombineInterruptedException e) {
      listener.onFailure(scope(), key.id(), e); // withdrawn from the queue: its one last event
      throw e;
    }
  }

  /**
   * One batch: the lock once ({@link BatchLockWait}: under the callers' deadlines, an interrupt
   * of the leader set aside until the batch is done, as the batch engine does for its round
   * trips), then group commit's rounds on a store fenced by its token. The leader's own update
   * alone is ended by its interrupt.
   */
  private void runBatch(Object k, KeyedCombiner.Batch<BatchUpdate.Call, UpdateOutcome> batch) {
    LockTarget target = (LockTarget) k;
    DocumentKey key = target.document;
    if (batch.size() == 1 && batch.isCallersOwn(0)) {
      runOwn(target, batch);
      return;
    }
    boolean interrupted = Thread.interrupted();
    BatchLockWait wait = new BatchLockWait(locks, lockWait, settings.ticker(), listener, scope(),
        batch);
    try {
      LockHandle held = wait.acquire(target.lockKey, key.id());
      if (held == null) {
        return; // the leader was answered; the others were handed back to the queue
      }
      holdingWhile(target, held, () -> UnderLock.run(held, () -> {
        batches.on(storeFor(key, held)).run(key.id(), BatchUpdate.ofCalls(batch));
        return null;
      }, () -> queuedBehind(target)));
    } finally {
      if (interrupted || wait.interruptSetAside()) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * The leader's own update alone (the usual case on a quiet document): a lone update under
   * the lock, run as the batch engine runs a batch of one, {@code onBatch} then the update
   * loop from when the caller queued, without the engine's machinery for several callers
   * (their rounds, their deadlines, an interrupt set aside for them). Its interrupt ends it.
   */
  private void runOwn(LockTarget target,
      KeyedCombiner.Batch<BatchUpdate.Call, UpdateOutcome> batch) {
    // Handed back from a batch's lock wait, it waits only for what is left of its own.
    Deadline lockWaitEnd = batch.request(0).lockWaitEnd();
    LockHandle lock = lockWaitEnd == null ? acquire(target)
        : Deadline.within(lockWaitEnd, () -> acquire(target));
    holdingWhile(target, lock, () -> UnderLock.run(lock, () -> {
      BatchUpdate.runAlone(loop.on(storeFor(target.document, lock)), listener, scope(),
          target.document.id(), BatchUpdate.ofCalls(batch));
      return null;
    }, () -> queuedBehind(target)));
  }

  /**
   * Whether callers of this process queued for the document while a batch held its lock: the
   * next batch's leader asks for the lock as soon as this one returns, so the lock may keep
   * its lease for it (a turn; {@link LockHandle#closeForSuccessor()}).
   */
  private boolean queuedBehind(LockTarget target) {
    return combiner.waiting(target) > 0;
  }

  /** Takes the document's lock for one caller; a failure is that caller's last event. */
  private LockHandle acquire(LockTarget target) {
    try {
      return locks.acquire(target.lockKey, lockWait);
    } catch (RuntimeException e) {
      listener.onFailure(scope(), target.document.id(), e);
      throw e;
    }
  }

  private <T> T holdingWhile(LockTarget target, LockHandle lock, Supplier<T> work) {
    return LockHolds.holdingWhile(locks, namespace, target.document, target.lockKey, lock, work);
  }

  /** True when the calling thread's record of held documents and locks is gone (for tests). */
  static boolean threadRecordsNothing() {
    return LockHolds.threadRecordsNothing();
  }

  private LockTarget target(DocumentKey document) {
    return new LockTarget(document, lockPrefix + document.lockText());
  }

  /**
   * A document and its lock key, made once per update: the group-commit queue's key (equal
   * when the documents are) and what the lock is taken, held and reported under.
   */
  private static final class LockTarget {
    final DocumentKey document;
    final String lockKey;

    LockTarget(DocumentKey document, String lockKey) {
      this.document = document;
      this.lockKey = lockKey;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof LockTarget t && t.document.equals(document);
    }

    @Override
    public int hashCode() {
      return document.hashCode();
    }

    @Override
    public String toString() {
      return document.toString();
    }
  }

  private LockedStore storeFor(DocumentKey key, LockHandle lock) {
    return new LockedStore(stores, key, lock);
  }

  /** Refuses a mutation that writes the fence field: only the fencing may move it. */
  private Mutator leavingTheFence(Mutator mutator) {
    return current -> {
      Mutation m = mutator.mutate(current);
      if (m instanceof Mutation.Update u) {
        BsonDocument rendered = u.update().toBsonDocument(BsonDocument.class,
            store.codecRegistry());
        Fencing.checkLeavesFence(rendered, fenceField);
        return Mutation.update(rendered);
      }
      return m;
    };
  }

  /**
   * The batch engine's listener: every event of the update loop but the failure of a caller
   * whose fenced write was refused, which this updater retries under a fresh lock (and reports
   * itself if it gives up), so that each update ends in one success, exhaustion or failure.
   */
  private final class RetriedRefusalsUnheard implements WriteGuardListener {
    private final WriteGuardListener target = listener;

    @Override
    public void onAttempt(OperationScope scope, Object key, int attempt) {
      target.onAttempt(scope, key, attempt);
    }

    @Override
    public void onConflict(OperationScope scope, Object key, int attempt) {
      target.onConflict(scope, key, attempt);
    }

    @Override
    public void onRetry(OperationScope scope, Object key, int attempt, Duration backoff) {
      target.onRetry(scope, key, attempt, backoff);
    }

    @Override
    public void onSuccess(OperationScope scope, Object key, int attempts, Duration elapsed) {
      target.onSuccess(scope, key, attempts, elapsed);
    }

    @Override
    public void onExhausted(OperationScope scope, Object key, int attempts, Duration elapsed) {
      target.onExhausted(scope, key, attempts, elapsed);
    }

    @Override
    public void onFailure(OperationScope scope, Object key, Throwable error) {
      if (!(error instanceof LockedStore.FenceRefusal refusal
          && refusal.refuses(LockedUpdater.this, DocumentKey.of(key, store.codecRegistry())))) {
        target.onFailure(scope, key, error);
      }
    }

    @Override
    public void onBatch(OperationScope scope, Object key, int size) {
      target.onBatch(scope, key, size);
    }
  }

  /**
   * Configures a {@link LockedUpdater}: the settings of {@link UpdaterBuilder}, with the
   * strategy name {@code locked} by default, and the lock's own. Not thread-safe.
   */
  public static final class Builder extends UpdaterBuilder<Builder> {
    private final MongoCollection<Document> collection;
    private final LockService locks;
    private Duration lockWait = Duration.ofSeconds(5);
    private String lockPrefix;
    private boolean fenced = true;
    private String fenceField = Fencing.FIELD;
    private boolean versionFilter = true;

    private Builder(MongoCollection<Document> collection, LockService locks) {
      super("locked");
      this.collection = Objects.requireNonNull(collection, "collection");
      this.locks = Objects.requireNonNull(locks, "locks");
      if (!collection.getWriteConcern().isAcknowledged()) {
        throw new IllegalArgumentException("collection write concern must be acknowledged, was "
            + collection.getWriteConcern() + ": an unacknowledged write cannot tell a refused"
            + " write from an applied one");
      }
    }

    /** How long a batch waits for the document's lock; positive; default 5 s. */
    public Builder lockWait(Duration lockWait) {
      this.lockWait = Checks.positive("lockWait", lockWait);
      return this;
    }

    /** The lock key is this prefix and the {@code _id}; default the collection name and ':'. */
    public Builder lockPrefix(String lockPrefix) {
      this.lockPrefix = Checks.notBlank("lockPrefix", lockPrefix);
      return this;
    }

    /** The field that remembers the highest token; default {@value Fencing#FIELD}. */
    public Builder fenceField(String fenceField) {
      this.fenceField = Fencing.checkField(fenceField);
      return this;
    }

    /**
     * Whether reads and writes are fenced by the lock's token (default true). Off, a holder
     * whose lease ran out is stopped only by the version filter, or, with that off too, by
     * nothing: {@link #build()} then accepts only an in-process lock (backend
     * {@value LocalLockService#BACKEND}), whose hold is never lost, in a collection no other
     * process writes (the seed's own fix).
     */
    public Builder fencing(boolean fenced) {
      this.fenced = fenced;
      return this;
    }

    /**
     * Whether the write also filters on the version read (default true), so that writers which
     * bypass the lock are never erased. Off, the lock and the fence alone guard the write: the
     * way a plain lock user writes, and the lab's setting, so that a broken lock shows up as
     * lost updates.
     */
    public Builder versionFilter(boolean versionFilter) {
      this.versionFilter = versionFilter;
      return this;
    }

    /**
     * @throws IllegalArgumentException if fencing and the version filter are both off with a
     *     lock that is not in-process
     */
    public LockedUpdater build() {
      if (!fenced && !versionFilter && !LocalLockService.BACKEND.equals(locks.backend())) {
        throw new IllegalArgumentException("fencing and the version filter are both off, so"
            + " the lock alone guards each write; a lock of backend '" + locks.backend()
            + "' can be lost when its lease runs out, and its old holder's write would erase"
            + " the next holder's: keep fencing or the version filter on (only an in-process"
            + " lock, backend '" + LocalLockService.BACKEND + "', may go without both)");
      }
      if (settings().versionPolicy().field().equals(fenceField) && fenced) {
        throw new IllegalArgumentException("fenceField and the version field must differ, both"
            + " were " + Checks.quote(fenceField));
      }
      return new LockedUpdater(this);
    }
  }
}
