package io.writeguard.lock;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.internal.Backoff;
import io.writeguard.internal.Checks;
import io.writeguard.internal.LeaseChecks;
import io.writeguard.internal.LockArguments;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A distributed lock with a lease, kept in a MongoDB collection of its own: no extra
 * infrastructure, and every process that shares the collection shares the locks.
 *
 * <p>Stored per key (the document survives release, so its token only rises):
 *
 * <pre>
 * { _id: "orders:42", owner: "4711-9f3c…" | null, attempt: "3kq9…x.1k", token: 160, leaseMs: 30000,
 *   acquiredAt: ISODate, renewedAt: ISODate, releasedAt: ISODate, contendedAt: ISODate }
 * </pre>
 *
 * <p>The algorithm, every time judged on the <b>server's</b> clock ({@code $currentDate} when
 * writing, {@code $$NOW} when comparing), so a client with a skewed clock cannot hand a lock to
 * a second holder:
 *
 * <ol>
 *   <li><b>Queue locally.</b> Callers of this service line up per key in a FIFO
 *       {@link LocalLockService}; only the head of the queue talks to MongoDB.
 *   <li><b>Take.</b> One {@code findOneAndUpdate} with upsert on {@code {_id: key, $or: [{owner:
 *       null}, {$expr: renewedAt + leaseMs < $$NOW}]}} sets the owner, stamps the server time and
 *       raises the token by a block. A free or expired lock matches; a missing one is inserted; a
 *       held one makes the upsert collide with the unique {@code _id}: duplicate key means
 *       <i>busy</i> (a value, not an error). Busy heads back off (bounded exponential, jittered,
 *       capped by the remaining wait) and leave a {@code contendedAt} mark.
 *   <li><b>Hand off locally.</b> When a holder releases while other callers of this service
 *       wait for the key, the next one gets the next token of the block without a round trip,
 *       up to {@code handoffBatch} holders or {@code handoffSlice}. Then the lease is released
 *       for real, and if another process marked the lock contended, this process pauses for one
 *       maximum backoff so the other one gets its turn.
 *   <li><b>Renew.</b> A watchdog per lease sets {@code renewedAt} every {@code renewInterval},
 *       filtered on owner and attempt. If the document no longer matches, or the lease runs out
 *       on this side's clock before a renewal gets through, the handle is marked lost, the
 *       listener hears {@code onLeaseLost}, and the key's local queue moves on.
 *   <li><b>Release.</b> {@code {_id, owner, attempt}} → {@code owner: null}; the token stays. A
 *       holder whose lease expired matches nothing, so it can never free a newer holder's lock.
 *   <li><b>Take over.</b> An expired lease matches step 2's filter; the new holder's token is
 *       higher, so fenced writes ({@link Fencing}, {@link FencedWriter}) from the old holder are
 *       refused by MongoDB.
 *   <li><b>Clean.</b> Lock documents idle for {@code staleAfter} past their lease are deleted
 *       by a periodic task (TTL indexes are not used: the embedded server ignores them). The
 *       cleaner first raises a collection-wide token floor, and a re-created key starts above
 *       it, so tokens never go back.
 * </ol>
 *
 * <p>What it does not promise: fairness between processes (heads poll; the contention mark
 * only makes a batching holder step aside), and safety for a holder that keeps working after
 * {@link LockHandle#isLost()} (only fenced writes are safe then). Lease expiry assumes the
 * server's and this process's clocks <i>run</i> at about the same rate; their offset does not
 * matter.
 *
 * <p>Thread-safe. Build with {@link #builder(MongoCollection)}.
 */
public final class MongoLeaseLockService implements LockService {
  static final String BACKEND = "mongo";
  private static final Logger log = LoggerFactory.getLogger(MongoLeaseLockService.class);

  private final MongoLockStore store;
  private final LeaseLockEngine engine;
  private final String owner;
  private final LeaseTerms terms;
  private final long staleAfterMs;

  private MongoLeaseLockService(Builder b) {
    this.owner = b.owner != null ? b.owner : LeaseChecks.defaultOwner();
    Duration renewInterval = LeaseChecks.watchdogInterval(b.lease, b.renewInterval, b.watchdog);
    this.terms = new LeaseTerms(b.lease, Optional.ofNullable(renewInterval), b.handoffBatch,
        b.handoffSlice, b.maxKeyLength);
    this.staleAfterMs = b.staleAfter.toMillis();
    Backoff backoff = Backoff.exponential(b.minBackoff, b.maxBackoff);
    this.store = new MongoLockStore(b.collection, b.lease.toMillis(), backoff, b.sleeper);
    this.engine = new LeaseLockEngine(new LeaseLockEngine.Settings(BACKEND, owner, b.lease, renewInterval,
        b.handoffBatch, b.handoffSlice, b.maxKeyLength, b.ticker, b.sleeper, b.listener), b.storeView.apply(store));
    if (b.cleanupInterval != null) {
      engine.every(b.cleanupInterval, this::cleanQuietly);
    }
  }

  /** A builder storing locks in {@code collection} (use a collection only for locks). */
  public static Builder builder(MongoCollection<?> collection) {
    return new Builder(Objects.requireNonNull(collection, "collection must not be null"));
  }

  /** A builder storing locks in {@code database.collectionName}. */
  public static Builder builder(MongoDatabase database, String collectionName) {
    Objects.requireNonNull(database, "database must not be null");
    Checks.notBlank("collectionName", collectionName);
    return new Builder(database.getCollection(collectionName));
  }

  @Override
  public String backend() {
    return BACKEND;
  }

  /** This service's owner id, as stored in the {@code owner} field of the locks it holds. */
  public String owner() {
    return owner;
  }

  /** The lease settings this service runs with, defaults filled in. */
  public LeaseTerms leaseTerms() {
    return terms;
  }

  /**
   * Waits up to {@code waitTimeout} (on the builder's ticker) for {@code key}: first in this
   * process's FIFO queue for the key, then, as its head, for the MongoDB lease.
   */
  @Override
  public LockHandle acquire(String key, Duration waitTimeout) {
    return engine.acquire(key, waitTimeout);
  }

  /** Takes {@code key} only if no caller of this service holds it and its lease is free now. */
  @Override
  public Optional<LockHandle> tryAcquire(String key) {
    return engine.tryAcquire(key);
  }

  /**
   * Deletes lock documents whose lease ended more than {@code staleAfter} ago (server clock),
   * at most 1000 per call, after raising the token floor above their tokens. The periodic
   * cleaner calls this; it is safe to call from any process at any time.
   *
   * @return how many lock documents were deleted
   * @throws LockBackendException if MongoDB failed
   */
  public long deleteStaleLocks() {
    try {
      return store.deleteStale(staleAfterMs, 1000);
    } catch (MongoException e) {
      throw new LockBackendException("mongo lock cleanup on " + store.namespace() + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * Stops the watchdog and cleaner and releases leases no caller holds. Handles still open
   * stay valid until their lease runs out, then are lost; closing them still releases.
   */
  @Override
  public void close() {
    engine.close();
  }

  private void cleanQuietly() {
    try {
      long deleted = deleteStaleLocks();
      if (deleted > 0) {
        log.debug("deleted {} stale mongo lock documents from {}", deleted, store.namespace());
      }
    } catch (RuntimeException e) {
      log.warn("stale mongo lock cleanup failed; will retry", e);
    }
  }

  /** The engine, for tests of its bounds and queue. */
  LeaseLockEngine engine() {
    return engine;
  }

  /** Callers of this service queued for {@code key} now; for tests. */
  int waitingLocally(String key) {
    return engine.waiting(key);
  }

  /** The stored lock document of {@code key}, or null; for tests and diagnostics. */
  Document lockDocument(String key) {
    return store.find(key);
  }

  /**
   * Settings for a {@link MongoLeaseLockService}. Not thread-safe; {@link #build()} validates
   * and copies them into an immutable service.
   */
  public static final class Builder {
    private final MongoCollection<?> collection;
    private Duration lease = LeaseChecks.DEFAULT_LEASE;
    private Duration renewInterval;
    private boolean watchdog = true;
    private String owner;
    private WriteGuardListener listener = WriteGuardListener.NOOP;
    private Ticker ticker = Ticker.system();
    private Sleeper sleeper = Sleeper.system();
    private Duration minBackoff = Duration.ofMillis(5);
    private Duration maxBackoff = Duration.ofMillis(50);
    private int handoffBatch = LeaseChecks.DEFAULT_HANDOFF_BATCH;
    private Duration handoffSlice = LeaseChecks.DEFAULT_HANDOFF_SLICE;
    private boolean handoffSliceSet;
    private int maxKeyLength = 256;
    private Duration cleanupInterval = Duration.ofMinutes(10);
    private Duration staleAfter = Duration.ofHours(1);
    private UnaryOperator<LeaseStore> storeView = UnaryOperator.identity();

    private Builder(MongoCollection<?> collection) {
      this.collection = collection;
    }

    /** How long a holder keeps the lock without renewing it; default 30 s. */
    public Builder lease(Duration lease) {
      this.lease = LeaseChecks.lease(lease);
      return this;
    }

    /**
     * How often the watchdog renews a held lease; must be shorter than the lease. Default: a
     * third of the lease.
     */
    public Builder renewInterval(Duration renewInterval) {
      this.renewInterval = LeaseChecks.renewInterval(renewInterval);
      this.watchdog = true;
      return this;
    }

    /**
     * No watchdog: a lease is never renewed, so work must finish within it. The same name as
     * the Redis lock's builder.
     */
    public Builder withoutWatchdog() {
      this.watchdog = false;
      return this;
    }

    /**
     * No watchdog.
     *
     * @deprecated use {@link #withoutWatchdog()}, the name both lease-lock builders share
     */
    @Deprecated
    public Builder noRenewal() {
      return withoutWatchdog();
    }

    /**
     * Stored as {@code owner}; must be unique per service instance. Default: {@code pid@host}
     * plus a random suffix.
     */
    public Builder owner(String owner) {
      this.owner = LeaseChecks.owner(owner);
      return this;
    }

    /** Receives lock waits, releases and lease losses; what it throws is logged and ignored. */
    public Builder listener(WriteGuardListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener must not be null");
      return this;
    }

    /** Where waits and leases are measured on this side; default {@link Ticker#system()}. */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
      return this;
    }

    /** How a busy head waits between attempts; default {@link Sleeper#system()}. */
    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = Objects.requireNonNull(sleeper, "sleeper must not be null");
      return this;
    }

    /**
     * Bounds of the busy head's jittered exponential backoff; default 5 ms to 50 ms. The maximum
     * is also the pause of a holder whose lock another process marked contended: it bounds how
     * long a process waits for its turn.
     */
    public Builder backoff(Duration min, Duration max) {
      this.minBackoff = Checks.positive("minBackoff", min);
      this.maxBackoff = Checks.positive("maxBackoff", max);
      return this;
    }

    /**
     * How many callers of this service may hold one lease in turn (each with its own token)
     * before it is released for real; 1 disables local hand-off. Default 32.
     */
    public Builder handoffBatch(int handoffBatch) {
      this.handoffBatch = LeaseChecks.handoffBatch(handoffBatch, Integer.MAX_VALUE, "");
      return this;
    }

    /**
     * A turn: how long one lease may be handed from caller to caller (and from one group-commit
     * batch of this process to the next, {@link LockHandle#closeForSuccessor()}) before it is
     * released, counted from its take; default 20 ms. Other processes wait at most this much
     * longer for the key. Positive and, when set, at most half the lease.
     */
    public Builder handoffSlice(Duration handoffSlice) {
      this.handoffSlice = LeaseChecks.handoffSlice(handoffSlice);
      this.handoffSliceSet = true;
      return this;
    }

    /** Longest accepted key; default 256 (a lock {@code _id} must stay a small index key). */
    public Builder maxKeyLength(int maxKeyLength) {
      this.maxKeyLength = LeaseChecks.maxKeyLength(maxKeyLength);
      return this;
    }

    /**
     * Deletes lock documents idle for {@code staleAfter} past their lease, every
     * {@code interval}. Defaults: every 10 min, idle 1 h.
     */
    public Builder cleanup(Duration interval, Duration staleAfter) {
      this.cleanupInterval = Checks.positive("cleanupInterval", interval);
      this.staleAfter = Checks.notNegative("staleAfter", staleAfter);
      return this;
    }

    /** No periodic cleanup; {@link #deleteStaleLocks()} still works when called. */
    public Builder noCleanup() {
      this.cleanupInterval = null;
      return this;
    }

    /** For tests: wraps the store the engine talks to (e.g. to inject faults). */
    Builder storeView(UnaryOperator<LeaseStore> storeView) {
      this.storeView = Objects.requireNonNull(storeView, "storeView");
      return this;
    }

    public MongoLeaseLockService build() {
      LeaseChecks.watchdogInterval(lease, renewInterval, watchdog);
      LockArguments.checkTurn(handoffSlice, handoffSliceSet, lease);
      if (minBackoff.compareTo(maxBackoff) > 0) {
        throw new IllegalArgumentException("minBackoff must not exceed maxBackoff, was "
            + minBackoff + " > " + maxBackoff);
      }
      return new MongoLeaseLockService(this);
    }
  }
}
