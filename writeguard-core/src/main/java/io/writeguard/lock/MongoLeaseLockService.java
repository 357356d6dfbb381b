package io.writeguard.lock;

import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.internal.Backoff;
import io.writeguard.internal.Checks;
import io.writeguard.internal.LockArguments;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * { _id: "orders:42", owner: "4711-9f3c…" | null, token: 160, leaseMs: 30000,
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
 *       filtered on owner and token. If the document no longer matches, or the lease runs out
 *       on this side's clock before a renewal gets through, the handle is marked lost, the
 *       listener hears {@code onLeaseLost}, and the key's local queue moves on.
 *   <li><b>Release.</b> {@code {_id, owner, token}} → {@code owner: null}; the token stays. A
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
  private static final AtomicInteger threadIds = new AtomicInteger();

  private final MongoLockStore store;
  private final LocalLockService localLocks;
  private final ConcurrentHashMap<String, LeaseSession> sessions = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Long> yields = new ConcurrentHashMap<>();
  private final ScheduledThreadPoolExecutor scheduler;
  private final String owner;
  private final long leaseNanos;
  private final long leaseMs;
  private final long renewNanos;
  private final long sliceNanos;
  private final int handoffBatch;
  private final int maxKeyLength;
  private final long staleAfterMs;
  private final Backoff backoff;
  private final Ticker ticker;
  private final Sleeper sleeper;
  private final WriteGuardListener listener;
  private volatile boolean closed;

  private MongoLeaseLockService(Builder b) {
    this.store = new MongoLockStore(b.collection);
    this.owner = b.owner != null ? b.owner : ProcessHandle.current().pid() + "-" + UUID.randomUUID();
    this.leaseNanos = b.lease.toNanos();
    this.leaseMs = b.lease.toMillis();
    this.renewNanos = b.renewInterval == null ? 0 : b.renewInterval.toNanos();
    this.sliceNanos = b.handoffSlice.toNanos();
    this.handoffBatch = b.handoffBatch;
    this.maxKeyLength = b.maxKeyLength;
    this.staleAfterMs = b.staleAfter.toMillis();
    this.backoff = Backoff.exponential(b.minBackoff, b.maxBackoff);
    this.ticker = b.ticker;
    this.sleeper = b.sleeper;
    this.listener = WriteGuardListener.safe(b.listener);
    this.localLocks = LocalLockService.builder().ticker(b.ticker).maxKeyLength(b.maxKeyLength).build();
    this.scheduler = new ScheduledThreadPoolExecutor(2, runnable -> {
      Thread thread = new Thread(runnable, "writeguard-mongo-lock-" + threadIds.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
    scheduler.setRemoveOnCancelPolicy(true); // one timer per lease: don't keep cancelled ones
    if (b.cleanupInterval != null) {
      long every = b.cleanupInterval.toNanos();
      scheduler.scheduleWithFixedDelay(this::cleanQuietly, every, every, TimeUnit.NANOSECONDS);
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

  /**
   * Waits up to {@code waitTimeout} (on the builder's ticker) for {@code key}: first in this
   * process's FIFO queue for the key, then, as its head, for the MongoDB lease.
   */
  @Override
  public LockHandle acquire(String key, Duration waitTimeout) {
    LockArguments.checkKey("key", key, maxKeyLength);
    long timeoutNanos = LockArguments.checkTimeoutNanos(waitTimeout);
    checkOpen();
    long start = ticker.nanoTime();
    LockHandle local;
    try {
      local = localLocks.acquire(key, waitTimeout);
    } catch (LockTimeoutException e) {
      afterLeavingQueue(key);
      listener.onLockWait(BACKEND, key, elapsed(start), false);
      throw new LockTimeoutException(BACKEND, key, waitTimeout, e.waiters());
    } catch (WriteGuardInterruptedException e) {
      afterLeavingQueue(key);
      throw e;
    }
    MongoLeaseHandle handle;
    try {
      handle = holdLease(key, local, start, timeoutNanos, true, waitTimeout);
    } catch (RuntimeException | Error e) {
      local.close();
      throw e;
    }
    listener.onLockWait(BACKEND, key, elapsed(start), true);
    return handle;
  }

  /** Takes {@code key} only if no caller of this service holds it and its lease is free now. */
  @Override
  public Optional<LockHandle> tryAcquire(String key) {
    LockArguments.checkKey("key", key, maxKeyLength);
    checkOpen();
    Optional<LockHandle> local = localLocks.tryAcquire(key);
    if (local.isEmpty()) {
      return Optional.empty();
    }
    try {
      MongoLeaseHandle handle = holdLease(key, local.get(), ticker.nanoTime(), 0, false, Duration.ZERO);
      if (handle == null) {
        local.get().close();
      }
      return Optional.ofNullable(handle);
    } catch (RuntimeException | Error e) {
      local.get().close();
      throw e;
    }
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
    closed = true;
    for (String key : sessions.keySet()) {
      releaseParked(key);
    }
    scheduler.shutdownNow();
  }

  // ---- taking the lease (runs only for the head of the key's local queue) ----

  /**
   * Gives the local queue's head a token: from this service's current lease if it is still
   * good, else from a new take. Returns null if {@code wait} is false and the key is busy.
   */
  private MongoLeaseHandle holdLease(String key, LockHandle local, long start, long timeoutNanos,
      boolean wait, Duration waitTimeout) {
    LeaseSession session = sessions.get(key);
    if (session != null) {
      if (session.usable() && session.hasTokens() && leaseLeftNanos(session) >= leaseNanos / 2) {
        return handOut(session, local);
      }
      sessions.remove(key, session);
      endSession(session);
    }
    if (wait) {
      waitOutYield(key, start, timeoutNanos);
    }
    for (int attempt = 1; ; attempt++) {
      long sent = ticker.nanoTime();
      Long top;
      try {
        top = take(key, wait);
      } catch (MongoInterruptedException e) {
        InterruptedException cause = new InterruptedException(e.getMessage());
        cause.initCause(e);
        throw new WriteGuardInterruptedException("taking mongo lock '" + LockArguments.shorten(key) + "'", cause);
      } catch (MongoException e) {
        throw new LockBackendException(BACKEND + " lock '" + LockArguments.shorten(key) + "' on "
            + store.namespace() + ": attempt " + attempt + " failed after " + elapsed(start).toMillis()
            + "ms: " + e.getMessage(), e);
      }
      if (top != null) {
        LeaseSession fresh = new LeaseSession(key, top, handoffBatch, sent);
        sessions.put(key, fresh);
        startTimer(fresh);
        return handOut(fresh, local);
      }
      if (!wait) {
        return null;
      }
      long remaining = timeoutNanos - (ticker.nanoTime() - start);
      if (remaining <= 0) {
        listener.onLockWait(BACKEND, key, elapsed(start), false);
        throw new LockTimeoutException(BACKEND, key, waitTimeout, localLocks.waiting(key) + 1);
      }
      long delay = backoff.equalJitterNanos(attempt, ThreadLocalRandom.current());
      pause(key, Math.min(delay, remaining));
    }
  }

  /** One take; returns the top token of the new block, or null if busy. */
  private Long take(String key, boolean markBusy) {
    MongoLockStore.Grant grant = store.tryTake(key, owner, leaseMs, handoffBatch);
    if (grant == null) {
      if (markBusy) {
        store.markContended(key, owner);
      }
      return null;
    }
    return grant.fresh() ? store.liftAboveFloor(key, owner, grant.top(), handoffBatch) : grant.top();
  }

  private MongoLeaseHandle handOut(LeaseSession session, LockHandle local) {
    MongoLeaseHandle handle = new MongoLeaseHandle(this, session, local, session.nextToken(), ticker.nanoTime());
    session.current = handle;
    return handle;
  }

  /** After a contended release, let the other process's head (polling) get its turn. */
  private void waitOutYield(String key, long start, long timeoutNanos) {
    Long until = yields.remove(key);
    if (until != null) {
      long remaining = timeoutNanos - (ticker.nanoTime() - start);
      pause(key, Math.min(until - ticker.nanoTime(), remaining));
    }
  }

  private void pause(String key, long nanos) {
    if (nanos <= 0) {
      return;
    }
    try {
      sleeper.sleep(Duration.ofNanos(nanos));
    } catch (InterruptedException e) {
      throw new WriteGuardInterruptedException("waiting for mongo lock '" + LockArguments.shorten(key) + "'", e);
    }
  }

  // ---- releasing ----

  /** Called once per handle by {@link MongoLeaseHandle#close()}. */
  void release(MongoLeaseHandle handle) {
    LeaseSession session = handle.session;
    String key = session.key;
    RuntimeException failure = null;
    boolean kept = false;
    if (handle.holdsLocal()) {
      if (session.current == handle) {
        session.current = null;
      }
      kept = session.usable() && session.hasTokens()
          && ticker.nanoTime() - session.startNanos < sliceNanos
          && leaseLeftNanos(session) >= leaseNanos / 2
          && localLocks.waiting(key) > 0;
      if (!kept) {
        sessions.remove(key, session);
        failure = endSessionReporting(session);
      }
      handle.releaseLocal();
    } else {
      // Lost earlier: free the document if still ours, and forget the session, or its entry
      // stays until the key is acquired again.
      sessions.remove(key, session);
      failure = endSessionReporting(session);
    }
    if (kept && localLocks.waiting(key) == 0) {
      // Guard against the race with a waiter that timed out after we decided to keep the lease.
      runInBackground(() -> releaseParked(key));
    }
    listener.onLockReleased(BACKEND, key, handle.token(), elapsed(handle.acquiredNanos()));
    if (failure != null) {
      throw failure;
    }
  }

  private RuntimeException endSessionReporting(LeaseSession session) {
    try {
      endSession(session);
      return null;
    } catch (LockBackendException e) {
      return e;
    }
  }

  /** Releases the lease in MongoDB, once. A failure of a lease not lost is reported. */
  private void endSession(LeaseSession session) {
    if (!session.ended.compareAndSet(false, true)) {
      return;
    }
    session.cancelTimer(); // ended is set first, so a renewal in flight cannot call this a loss
    boolean wasLost = session.lost.get();
    try {
      Boolean contended = store.release(session.key, owner, session.top);
      if (Boolean.TRUE.equals(contended)) {
        yields.put(session.key, ticker.nanoTime() + backoff.maxNanos());
      }
    } catch (MongoException e) {
      if (wasLost) {
        log.debug("release of lost mongo lock '{}' failed; its lease expires anyway", session.key, e);
        return;
      }
      throw new LockBackendException(BACKEND + " lock '" + LockArguments.shorten(session.key)
          + "' (token " + session.top + ") on " + store.namespace() + ": release failed, the lock frees"
          + " itself when its " + leaseMs + "ms lease runs out: " + e.getMessage(), e);
    }
  }

  /** If nobody holds the key's local lock, releases a lease kept for a waiter who left. */
  private void releaseParked(String key) {
    if (!sessions.containsKey(key)) {
      return;
    }
    Optional<LockHandle> local = localLocks.tryAcquire(key);
    if (local.isEmpty()) {
      return; // the holder decides what happens to the lease
    }
    try {
      LeaseSession session = sessions.get(key);
      if (session != null && session.current == null) {
        sessions.remove(key, session);
        endSession(session);
      }
    } catch (RuntimeException e) {
      log.warn("releasing idle mongo lock '{}' failed; its lease expires anyway", key, e);
    } finally {
      local.get().close();
    }
  }

  private void afterLeavingQueue(String key) {
    if (sessions.containsKey(key)) {
      runInBackground(() -> releaseParked(key));
    }
  }

  // ---- watchdog ----

  private void startTimer(LeaseSession session) {
    try {
      if (renewNanos > 0) {
        session.timer = scheduler.scheduleWithFixedDelay(() -> renew(session), renewNanos, renewNanos,
            TimeUnit.NANOSECONDS);
      } else {
        session.timer = scheduler.schedule(() -> checkExpiry(session), leaseNanos, TimeUnit.NANOSECONDS);
      }
    } catch (RejectedExecutionException e) {
      // Closed while this caller was queued: as for handles held at close(), the lease is not
      // renewed, and isLost() still reports when it runs out.
      log.debug("mongo lock service closed; no watchdog for '{}'", LockArguments.shorten(session.key));
    }
  }

  private void renew(LeaseSession session) {
    if (!session.usable()) {
      return;
    }
    long sent = ticker.nanoTime();
    try {
      boolean stillOurs = store.renew(session.key, owner, session.top);
      if (stillOurs) {
        session.confirm(sent);
      } else if (!session.ended.get()) {
        sessionLost(session, "the lock document was taken over or changed");
        return;
      }
    } catch (RuntimeException e) {
      log.warn("renewing mongo lock '{}' failed; retrying until its lease runs out", session.key, e);
    }
    if (leaseRanOut(session)) {
      sessionLost(session, "renewals failed until the lease ran out");
    }
  }

  /** Without a watchdog: marks the lease lost once it ran out, even if nobody asks the handle. */
  private void checkExpiry(LeaseSession session) {
    if (!session.usable()) {
      return;
    }
    if (leaseRanOut(session)) {
      sessionLost(session, "the lease ran out without a renewal");
    } else {
      session.timer = scheduler.schedule(() -> checkExpiry(session),
          Math.max(leaseLeftNanos(session), TimeUnit.MILLISECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
    }
  }

  boolean leaseRanOut(LeaseSession session) {
    return leaseLeftNanos(session) <= 0;
  }

  private long leaseLeftNanos(LeaseSession session) {
    return leaseNanos - (ticker.nanoTime() - session.confirmedNanos());
  }

  /**
   * Marks the lease lost, once: the current handle says so, the listener hears it, and the
   * key's local queue moves on (its next head takes the lease again after it expires).
   */
  void sessionLost(LeaseSession session, String why) {
    if (session.ended.get() || !session.lost.compareAndSet(false, true)) {
      return;
    }
    session.cancelTimer();
    MongoLeaseHandle holder = session.current;
    long token = holder != null ? holder.token() : session.top;
    log.warn("mongo lock '{}' (token {}) lost: {}", LockArguments.shorten(session.key), token, why);
    // The listener first: whoever sees isLost() can rely on the listener having heard it.
    listener.onLeaseLost(BACKEND, session.key, token);
    session.lostAnnounced = true;
    if (holder != null) {
      holder.markLost();
      holder.releaseLocal();
    } else {
      runInBackground(() -> releaseParked(session.key));
    }
  }

  // ---- helpers ----

  private void cleanQuietly() {
    try {
      long deleted = deleteStaleLocks();
      if (deleted > 0) {
        log.debug("deleted {} stale mongo lock documents from {}", deleted, store.namespace());
      }
    } catch (RuntimeException e) {
      log.warn("stale mongo lock cleanup failed; will retry", e);
    }
    long now = ticker.nanoTime();
    yields.values().removeIf(until -> until - now < 0);
  }

  private void runInBackground(Runnable task) {
    if (!closed) {
      try {
        scheduler.execute(task);
      } catch (RejectedExecutionException e) {
        log.debug("service closed; skipped background task", e);
      }
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("mongo lock service on " + store.namespace() + " is closed");
    }
  }

  private Duration elapsed(long startNanos) {
    return Duration.ofNanos(Math.max(0, ticker.nanoTime() - startNanos));
  }

  /** Callers of this service queued for {@code key} now; for tests. */
  int waitingLocally(String key) {
    return localLocks.waiting(key);
  }

  /** Leases this service keeps in memory now; for tests. */
  int sessionCount() {
    return sessions.size();
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
    private Duration lease = Duration.ofSeconds(30);
    private Duration renewInterval;
    private boolean renewIntervalSet;
    private String owner;
    private WriteGuardListener listener = WriteGuardListener.NOOP;
    private Ticker ticker = Ticker.system();
    private Sleeper sleeper = Sleeper.system();
    private Duration minBackoff = Duration.ofMillis(5);
    private Duration maxBackoff = Duration.ofMillis(100);
    private int handoffBatch = 32;
    private Duration handoffSlice = Duration.ofMillis(200);
    private int maxKeyLength = 256;
    private Duration cleanupInterval = Duration.ofMinutes(10);
    private Duration staleAfter = Duration.ofHours(1);

    private Builder(MongoCollection<?> collection) {
      this.collection = collection;
    }

    /** How long a holder keeps the lock without renewing it; default 30 s. */
    public Builder lease(Duration lease) {
      this.lease = Checks.positive("lease", lease);
      return this;
    }

    /**
     * How often the watchdog renews a held lease; must be shorter than the lease. Default: a
     * third of the lease.
     */
    public Builder renewInterval(Duration renewInterval) {
      this.renewInterval = Checks.positive("renewInterval", renewInterval);
      this.renewIntervalSet = true;
      return this;
    }

    /** No watchdog: a lease is never renewed, so work must finish within it. */
    public Builder noRenewal() {
      this.renewInterval = null;
      this.renewIntervalSet = true;
      return this;
    }

    /** Stored as {@code owner}; must be unique per service instance. Default: pid + random UUID. */
    public Builder owner(String owner) {
      this.owner = Checks.notBlank("owner", owner);
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

    /** Bounds of the busy head's jittered exponential backoff; default 5 ms to 100 ms. */
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
      this.handoffBatch = Checks.atLeast("handoffBatch", handoffBatch, 1);
      return this;
    }

    /** How long one lease may be handed from caller to caller; default 200 ms. */
    public Builder handoffSlice(Duration handoffSlice) {
      this.handoffSlice = Checks.positive("handoffSlice", handoffSlice);
      return this;
    }

    /** Longest accepted key; default 256 (a lock {@code _id} must stay a small index key). */
    public Builder maxKeyLength(int maxKeyLength) {
      this.maxKeyLength = Checks.atLeast("maxKeyLength", maxKeyLength, 1);
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

    public MongoLeaseLockService build() {
      if (!renewIntervalSet) {
        renewInterval = lease.dividedBy(3);
      }
      if (lease.toMillis() < 1) {
        throw new IllegalArgumentException("lease must be at least 1ms (stored in ms), was " + lease);
      }
      if (renewInterval != null && renewInterval.compareTo(lease) >= 0) {
        throw new IllegalArgumentException("renewInterval must be shorter than the lease, was "
            + renewInterval + " with lease " + lease);
      }
      if (renewInterval != null && renewInterval.isZero()) {
        throw new IllegalArgumentException("renewInterval must be positive, was " + renewInterval
            + " (a third of lease " + lease + ")");
      }
      if (minBackoff.compareTo(maxBackoff) > 0) {
        throw new IllegalArgumentException("minBackoff must not exceed maxBackoff, was "
            + minBackoff + " > " + maxBackoff);
      }
      return new MongoLeaseLockService(this);
    }
  }
}
