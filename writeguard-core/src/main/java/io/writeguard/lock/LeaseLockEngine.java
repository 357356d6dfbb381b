package io.writeguard.lock;

import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.internal.Deadline;
import io.writeguard.internal.LockArguments;
import io.writeguard.internal.Uninterrupted;
import io.writeguard.monitor.WriteGuardListener;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease-lock state machine shared by every distributed lock service; a {@link LeaseStore}
 * (MongoDB, Redis) only takes, renews and releases leases.
 *
 * <ol>
 *   <li><b>Queue locally.</b> Callers line up per key in a FIFO {@link LocalLockService}; only
 *       the head of the queue talks to the store, so many local waiters make one store waiter.
 *   <li><b>Take.</b> The head takes the key with a block of {@code handoffBatch} tokens and a
 *       fresh attempt id; busy heads wait as the store says ({@link LeaseStore.BusyWait}). A
 *       take that fails with an unknown outcome is abandoned (freed by attempt id in the
 *       background) before the failure is thrown, so it does not block the key for a lease.
 *   <li><b>Hand off.</b> A holder releasing while callers of this process wait for the key keeps
 *       the lease for the next one, who gets the next token of the block without a round trip,
 *       up to {@code handoffBatch} holders or {@code handoffSlice}, and only while half the
 *       lease is left. Then the lease is released in the store.
 *   <li><b>Watch.</b> One task per lease renews it every {@code renewInterval} (or, without a
 *       watchdog, checks when it runs out). A renewal answered "not yours", or a lease that ran
 *       out on this side's clock, is <i>lost</i>: the listener hears it once, the current holder
 *       is marked lost and its local turn passes on.
 * </ol>
 *
 * <p><b>Hand-out versus loss.</b> A loss can be found while the lease is being handed to the
 * next holder, after the hand-out judged it usable and before the new handle is its
 * {@code current}. Both sides write their flag before reading the other's ({@code current} then
 * {@code lost} in {@link #handOut}, {@code lost} then {@code current} in {@link #markLost}, all
 * volatile), so at least one sees the other: either the loss marks the new handle, or the
 * hand-out sees the loss, takes the caller's local turn back and the caller takes the key anew.
 *
 * <p>Leases are counted from when their take or renewal was <i>sent</i>, on the injected
 * ticker, so this side gives up no later than the store. Every per-key map is bounded: leases
 * leave {@code leases} when they end (lost ones when their holder closes), and {@code yields}
 * holds at most {@link #MAX_YIELDS} entries. Thread-safe.
 *
 * <p>Public for the lock services built on it (MongoDB here, Redis in writeguard-redis), not
 * for application code, which uses a {@link LockService}. It lives in this package because it
 * speaks the lock API's types (handles, timeouts, the local queue).
 *
 * <p>Why one file of some 580 lines: it is one state machine over one set of fields (the
 * per-key leases, the local queue, the yields), and its subtle orderings (hand-out against
 * loss above, release against a parked waiter) each have their two sides in different
 * methods, which a reader must see together. The store's commands, the handle and the lease's
 * own state are already apart ({@link LeaseStore}, {@code LeaseLockHandle}, {@code Lease}).
 */
public final class LeaseLockEngine {
  /** Most keys remembered at once for "let the other process have its turn". */
  static final int MAX_YIELDS = 1024;
  /** Shortest lease timer for which the engine keeps a pacer (see {@link #startTimer}). */
  static final long MIN_PACED_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  /**
   * How long a lease kept for a successor ({@link LockHandle#closeForSuccessor()}) waits for
   * it: long enough for the next caller's thread to be woken and ask, short against the
   * turn, so another process waits at most this much longer for an unused lease.
   */
  public static final Duration SUCCESSOR_GRACE = Duration.ofMillis(10);
  private static final long SUCCESSOR_GRACE_NANOS = SUCCESSOR_GRACE.toNanos();
  private static final Logger log = LoggerFactory.getLogger(LeaseLockEngine.class);
  private static final AtomicInteger threadIds = new AtomicInteger();

  /** The validated settings of one engine. {@code renewInterval} null means no watchdog. */
  public record Settings(String backend, String owner, Duration lease, Duration renewInterval,
      int handoffBatch, Duration handoffSlice, int maxKeyLength, Ticker ticker, Sleeper sleeper,
      WriteGuardListener listener) {
    public Settings {
      Objects.requireNonNull(backend, "backend");
      Objects.requireNonNull(owner, "owner");
      Objects.requireNonNull(ticker, "ticker");
      Objects.requireNonNull(sleeper, "sleeper");
      Objects.requireNonNull(listener, "listener");
    }
  }

  private final LeaseStore store;
  private final String backend;
  private final String owner;
  private final long leaseNanos;
  private final long renewNanos;
  private final long sliceNanos;
  private final int handoffBatch;
  private final int maxKeyLength;
  private final Ticker ticker;
  private final Sleeper sleeper;
  private final WriteGuardListener listener;
  private final LocalLockService localLocks;
  private final ConcurrentHashMap<String, Lease> leases = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Long> yields = new ConcurrentHashMap<>();
  /**
   * Makes attempt ids unique across engines, not only within one: a store takes a take with
   * the holder's owner and attempt for a resend and grants it, so two services sharing an owner
   * id (a configured name on two replicas, a restarted process) must never share an attempt.
   */
  private final String attemptPrefix = Long.toString(new SecureRandom().nextLong() & Long.MAX_VALUE, 36);
  private final AtomicLong attempts = new AtomicLong();
  private final ScheduledThreadPoolExecutor scheduler;
  /** The delay of a new lease's first timer: its renewal, or its expiry check. */
  private final long timerNanos;
  private final AtomicBoolean pacing = new AtomicBoolean();
  private volatile boolean closed;

  public LeaseLockEngine(Settings settings, LeaseStore store) {
    this.store = Objects.requireNonNull(store, "store");
    this.backend = settings.backend();
    this.owner = settings.owner();
    this.leaseNanos = settings.lease().toNanos();
    this.renewNanos = settings.renewInterval() == null ? 0 : settings.renewInterval().toNanos();
    this.sliceNanos = settings.handoffSlice().toNanos();
    this.handoffBatch = settings.handoffBatch();
    this.maxKeyLength = settings.maxKeyLength();
    this.ticker = settings.ticker();
    this.sleeper = settings.sleeper();
    this.listener = WriteGuardListener.safe(settings.listener());
    this.localLocks = LocalLockService.builder().ticker(ticker).maxKeyLength(maxKeyLength).build();
    this.scheduler = new ScheduledThreadPoolExecutor(2, runnable -> {
      Thread thread = new Thread(runnable, "writeguard-" + backend + "-lock-" + threadIds.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
    scheduler.setRemoveOnCancelPolicy(true); // one timer per lease: don't keep cancelled ones
    this.timerNanos = renewNanos > 0 ? renewNanos : leaseNanos;
  }

  public String backend() {
    return backend;
  }

  /** Runs {@code task} every {@code every} on the engine's threads until {@link #close()}. */
  public void every(Duration every, Runnable task) {
    long nanos = every.toNanos();
    scheduler.scheduleWithFixedDelay(task, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * Waits up to {@code waitTimeout}, or to the calling thread's {@link Deadline} if that comes
   * first (the wait and the work under the lock share the caller's budget): first in this
   * process's queue for the key, then in the store, whose round trips end with the wait.
   */
  public LockHandle acquire(String key, Duration requestedWait) {
    LockArguments.checkKey("key", key, maxKeyLength);
    LockArguments.checkTimeoutNanos(requestedWait);
    checkOpen();
    Duration waitTimeout = LockArguments.waitFor(requestedWait);
    long timeoutNanos = LockArguments.checkTimeoutNanos(waitTimeout);
    return Deadline.within(Deadline.after(waitTimeout),
        () -> acquireWithin(key, waitTimeout, timeoutNanos));
  }

  private LockHandle acquireWithin(String key, Duration waitTimeout, long timeoutNanos) {
    long start = ticker.nanoTime();
    LockHandle local;
    try {
      local = localLocks.acquire(key, waitTimeout);
    } catch (LockTimeoutException e) {
      afterLeavingQueue(key);
      listener.onLockWait(backend, key, elapsed(start), false);
      throw new LockTimeoutException(backend, key, waitTimeout, e.waiters());
    } catch (WriteGuardInterruptedException e) {
      afterLeavingQueue(key);
      throw e;
    }
    LockHandle handle;
    try {
      handle = holdLease(key, local, start, timeoutNanos, waitTimeout);
    } catch (RuntimeException | Error e) {
      local.close();
      throw e;
    }
    listener.onLockWait(backend, key, elapsed(start), true);
    return handle;
  }

  /** Takes {@code key} only if no caller of this process holds it and the store has it free now. */
  public Optional<LockHandle> tryAcquire(String key) {
    LockArguments.checkKey("key", key, maxKeyLength);
    checkOpen();
    Optional<LockHandle> local = localLocks.tryAcquire(key);
    if (local.isEmpty()) {
      return Optional.empty();
    }
    try {
      LockHandle handle = holdLease(key, local.get(), ticker.nanoTime(), -1, Duration.ZERO);
      if (handle == null) {
        local.get().close();
      }
      return Optional.ofNullable(handle);
    } catch (RuntimeException | Error e) {
      local.get().close();
      throw e;
    }
  }

  /** Releases leases no caller holds and stops the watchdog; open handles stay valid until their lease runs out. */
  public void close() {
    closed = true;
    for (String key : leases.keySet()) {
      releaseParked(key);
    }
    scheduler.shutdownNow();
  }

  // ---- taking (only the head of the key's local queue runs this) ----

  /**
   * Gives the local queue's head a token: from the kept lease if it is still good, else from a
   * new take. {@code timeoutNanos} -1 means "do not wait": returns null if the key is busy.
   */
  private LockHandle holdLease(String key, LockHandle local, long start, long timeoutNanos, Duration waitTimeout) {
    Lease kept = leases.get(key);
    if (kept != null) {
      if (kept.usable() && kept.hasTokens() && leaseLeftNanos(kept) >= leaseNanos / 2) {
        LockHandle handle = handOut(kept, local);
        if (handle != null) {
          return handle;
        }
      }
      leases.remove(key, kept);
      endQuietly(kept);
    }
    boolean wait = timeoutNanos >= 0;
    if (wait) {
      waitOutYield(key, start, timeoutNanos);
    }
    try (LeaseStore.BusyWait busy = wait ? store.busyWait(key) : null) {
      for (int attempt = 1; ; attempt++) {
        if (busy != null) {
          busy.beforeTake();
        }
        long sent = ticker.nanoTime();
        String attemptId = attemptPrefix + "." + Long.toString(attempts.incrementAndGet(), 36);
        LeaseStore.Take take = take(key, attemptId, wait, attempt, start);
        if (take.grant() != null) {
          Lease fresh = new Lease(key, attemptId, take.grant(), sent);
          leases.put(key, fresh);
          startTimer(fresh);
          LockHandle handle = handOut(fresh, local);
          if (handle != null) {
            return handle;
          }
          leases.remove(key, fresh); // lost at once; take it again
          endQuietly(fresh);
          continue;
        }
        if (!wait) {
          return null;
        }
        long remaining = timeoutNanos - (ticker.nanoTime() - start);
        if (remaining <= 0) {
          listener.onLockWait(backend, key, elapsed(start), false);
          throw new LockTimeoutException(backend, key, waitTimeout, localLocks.waiting(key) + 1);
        }
        busy.pause(attempt, take.retryHintNanos(), remaining);
      }
    } catch (InterruptedException e) {
      throw new WriteGuardInterruptedException("waiting for " + backend + " lock '" + LockArguments.shorten(key) + "'", e);
    }
  }

  private LeaseStore.Take take(String key, String attemptId, boolean queued, int attempt, long start) {
    try {
      return store.take(key, owner, attemptId, handoffBatch, queued);
    } catch (WriteGuardInterruptedException e) {
      abandonLater(key, attemptId);
      throw e;
    } catch (RuntimeException e) {
      abandonLater(key, attemptId);
      Deadline deadline = Deadline.current();
      if (queued && deadline != null && deadline.passed()) {
        // The wait ran out during the take (a stalled store): a lock not had in time.
        listener.onLockWait(backend, key, elapsed(start), false);
        LockTimeoutException timeout = new LockTimeoutException(backend, key,
            elapsed(start), localLocks.waiting(key) + 1);
        timeout.initCause(e);
        throw timeout;
      }
      throw new LockBackendException(backend + " lock '" + LockArguments.shorten(key) + "' on " + store.describe()
          + ": attempt " + attempt + " failed after " + elapsed(start).toMillis() + "ms: " + e.getMessage(), e);
    }
  }

  /** The take may have succeeded without our hearing it: free the key by attempt id. */
  private void abandonLater(String key, String attemptId) {
    Runnable abandon = () -> {
      try {
        store.abandon(key, owner, attemptId);
      } catch (RuntimeException e) {
        log.warn("abandoning {} lock '{}' (attempt {}) failed; it expires with its lease", backend,
            LockArguments.shorten(key), attemptId, e);
      }
    };
    if (!runInBackground(abandon)) {
      abandon.run();
    }
  }

  /**
   * Makes the head the lease's current holder. Returns null, with the head still holding its
   * local turn, if the lease was found lost in that instant (see the class comment).
   */
  private LockHandle handOut(Lease lease, LockHandle local) {
    LeaseLockHandle handle = new LeaseLockHandle(this, lease, local, lease.nextToken(), ticker.nanoTime());
    lease.current = handle;
    if (lease.usable()) {
      return handle;
    }
    if (handle.reclaimLocal()) {
      return null;
    }
    return handle; // the loss already marked it and passed its turn on: it says it is lost
  }

  /** After a contended release, let the other process's head get its turn. */
  private void waitOutYield(String key, long start, long timeoutNanos) {
    Long until = yields.remove(key);
    if (until == null) {
      return;
    }
    long nanos = Math.min(until - ticker.nanoTime(), timeoutNanos - (ticker.nanoTime() - start));
    if (nanos > 0) {
      try {
        sleeper.sleep(Duration.ofNanos(nanos));
      } catch (InterruptedException e) {
        throw new WriteGuardInterruptedException("waiting for " + backend + " lock '" + LockArguments.shorten(key) + "'", e);
      }
    }
  }

  // ---- releasing ----

  /**
   * Called once per handle by {@link LeaseLockHandle#close()} ({@code successorComing} false)
   * or {@link LeaseLockHandle#closeForSuccessor()} (true). The lease is kept, not released,
   * while the turn lasts (tokens left, {@code handoffSlice} since the take, half the lease left)
   * and a caller of this process waits for the key, or, with {@code successorComing}, is about
   * to: then it stays parked at most {@link #SUCCESSOR_GRACE} for that caller.
   */
  void release(LeaseLockHandle handle, boolean successorComing) {
    Lease lease = handle.lease;
    String key = lease.key;
    RuntimeException failure = null;
    boolean kept = false;
    if (handle.holdsLocal()) {
      if (lease.current == handle) {
        lease.current = null;
      }
      kept = lease.usable() && lease.hasTokens()
          && ticker.nanoTime() - lease.startNanos < sliceNanos
          && leaseLeftNanos(lease) >= leaseNanos / 2
          && (successorComing || localLocks.waiting(key) > 0);
      if (kept) {
        lease.parkedNanos = ticker.nanoTime();
      } else {
        leases.remove(key, lease);
        failure = endReporting(lease); // sent before the local turn passes on
      }
      handle.releaseLocal();
    } else {
      // Lost earlier: free the key if the store still has it as ours, and forget the lease.
      leases.remove(key, lease);
      failure = endReporting(lease);
    }
    if (kept && successorComing) {
      // After the local turn passed on (see checkParked): nobody may be left to free it.
      scheduleParkedCheck(lease, SUCCESSOR_GRACE_NANOS);
    } else if (kept && localLocks.waiting(key) == 0) {
      // Guard against the race with a waiter that timed out after we decided to keep the lease.
      runInBackground(() -> releaseParked(key));
    }
    listener.onLockReleased(backend, key, handle.token(), elapsed(handle.acquiredNanos()));
    if (failure != null) {
      throw failure;
    }
  }

  /** Checks {@code lease} in {@code delayNanos} unless a check is pending already. */
  private void scheduleParkedCheck(Lease lease, long delayNanos) {
    if (!lease.parkedCheckPending.compareAndSet(false, true)) {
      return;
    }
    try {
      scheduler.schedule(() -> checkParked(lease), delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      lease.parkedCheckPending.set(false); // closed: close() released the parked leases
    }
  }

  /**
   * Frees a lease kept for a successor that did not come within {@link #SUCCESSOR_GRACE}.
   * The pending flag is cleared before the key's local lock is tried, and a releasing holder
   * schedules its check only after it gave that lock up, so one of the two always sees the
   * other: either this check finds the key free and parked, or the holder schedules a new one.
   */
  private void checkParked(Lease lease) {
    lease.parkedCheckPending.set(false);
    if (leases.get(lease.key) != lease || !lease.usable()) {
      return;
    }
    Optional<LockHandle> local = localLocks.tryAcquire(lease.key);
    if (local.isEmpty()) {
      return; // held: its holder decides at its release, and schedules a check if it parks
    }
    try {
      if (lease.current != null) {
        return;
      }
      long parkedFor = ticker.nanoTime() - lease.parkedNanos;
      if (parkedFor >= SUCCESSOR_GRACE_NANOS) {
        leases.remove(lease.key, lease);
        endQuietly(lease);
        return;
      }
      scheduleParkedCheck(lease, SUCCESSOR_GRACE_NANOS - parkedFor);
    } finally {
      local.get().close();
    }
  }

  /** Ends the lease; a failure is returned, to be thrown once the local turn has passed on. */
  private RuntimeException endReporting(Lease lease) {
    try {
      end(lease);
      return null;
    } catch (LockBackendException | WriteGuardInterruptedException e) {
      return e;
    }
  }

  private void endQuietly(Lease lease) {
    try {
      end(lease);
    } catch (LockBackendException e) {
      log.warn("releasing {} lock '{}' failed; it expires with its lease", backend, LockArguments.shorten(lease.key), e);
    }
  }

  /** Releases the lease in the store, once. A failure of a lease not lost is reported. */
  private void end(Lease lease) {
    if (!lease.ended.compareAndSet(false, true)) {
      return;
    }
    lease.cancelTimer(); // ended is set first, so a renewal in flight cannot call this a loss
    try {
      // Sent with the interrupt set aside: a lock closed on an interrupted thread (work that
      // was cancelled, a try-with-resources around it) must still free its key now, not when
      // its lease runs out; the driver refuses every call of an interrupted thread.
      long yieldNanos = Uninterrupted.call(
          () -> store.release(lease.key, owner, lease.attempt, lease.grant));
      if (yieldNanos > 0) {
        rememberYield(lease.key, ticker.nanoTime() + yieldNanos);
      }
    } catch (WriteGuardInterruptedException e) {
      throw e;
    } catch (RuntimeException e) {
      if (lease.lost.get()) {
        log.debug("release of lost {} lock '{}' failed; its lease expires anyway", backend, lease.key, e);
        return;
      }
      throw new LockBackendException(backend + " lock '" + LockArguments.shorten(lease.key) + "' (tokens up to "
          + lease.grant.top() + ") on " + store.describe() + ": release failed, the lock frees itself when its "
          + Duration.ofNanos(leaseNanos).toMillis() + "ms lease runs out: " + e.getMessage(), e);
    }
  }

  /** Bounded: expired entries go first; when all are live, this key is not remembered (less polite, still safe). */
  private void rememberYield(String key, long until) {
    if (yields.size() >= MAX_YIELDS) {
      long now = ticker.nanoTime();
      yields.values().removeIf(u -> u - now <= 0);
      if (yields.size() >= MAX_YIELDS) {
        return;
      }
    }
    yields.put(key, until);
  }

  /** If nobody holds the key's local lock, releases a lease kept for a waiter who left. */
  private void releaseParked(String key) {
    if (!leases.containsKey(key)) {
      return;
    }
    Optional<LockHandle> local = localLocks.tryAcquire(key);
    if (local.isEmpty()) {
      return; // the holder decides what happens to the lease
    }
    try {
      Lease lease = leases.get(key);
      if (lease != null && lease.current == null) {
        leases.remove(key, lease);
        endQuietly(lease);
      }
    } finally {
      local.get().close();
    }
  }

  private void afterLeavingQueue(String key) {
    if (leases.containsKey(key)) {
      runInBackground(() -> releaseParked(key));
    }
  }

  // ---- watchdog ----

  /**
   * Schedules the lease's watchdog. The first time, it also starts the engine's pacer: a task
   * that does nothing, every {@code timerNanos}. Why: the scheduler wakes one of its threads
   * whenever a task becomes the earliest in its queue, and without the pacer every lease timer
   * would, since the previous lease's was cancelled at its release; a thread woken and put
   * back to sleep on every take costs more CPU than the take's own bookkeeping. The pacer's next
   * run is never later than a new lease's first timer (both are {@code timerNanos} after a
   * moment that is not later for the pacer, and an earlier task wins a tie), so that timer is
   * queued behind it and wakes nobody. The lease timers run exactly as without it. Not for
   * timers shorter than {@link #MIN_PACED_NANOS} (test settings), where the pacer would run
   * all the time.
   */
  private void startTimer(Lease lease) {
    if (!pacing.get() && timerNanos >= MIN_PACED_NANOS && pacing.compareAndSet(false, true)) {
      try {
        scheduler.scheduleWithFixedDelay(LeaseLockEngine::pace, timerNanos, timerNanos,
            TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        log.debug("{} lock engine closed; no pacer", backend);
      }
    }
    try {
      if (renewNanos > 0) {
        lease.timer = scheduler.scheduleWithFixedDelay(() -> renew(lease), renewNanos, renewNanos, TimeUnit.NANOSECONDS);
      } else {
        lease.timer = scheduler.schedule(() -> checkExpiry(lease), leaseNanos, TimeUnit.NANOSECONDS);
      }
    } catch (RejectedExecutionException e) {
      // Closed while this caller was queued: as for handles held at close(), the lease is not
      // renewed, and isLost() still reports when it runs out.
      log.debug("{} lock engine closed; no watchdog for '{}'", backend, LockArguments.shorten(lease.key));
    }
    if (!lease.usable()) {
      lease.cancelTimer(); // ended before the timer was set
    }
  }

  /** The pacer's run: nothing (see {@link #startTimer}). */
  private static void pace() {
    // keeps the scheduler's earliest task ahead of every new lease timer
  }

  /** Whether the engine's pacer has been started (for tests). */
  boolean pacing() {
    return pacing.get();
  }

  private void renew(Lease lease) {
    if (!lease.usable()) {
      return;
    }
    if (leaseRanOut(lease)) {
      markLost(lease, "renewals failed until the lease ran out");
      return;
    }
    long sent = ticker.nanoTime();
    try {
      if (store.renew(lease.key, owner, lease.attempt, lease.grant)) {
        lease.confirm(sent);
      } else if (!lease.ended.get()) {
        markLost(lease, "the store has the key taken over, changed or expired");
      }
    } catch (RuntimeException e) {
      log.warn("renewing {} lock '{}' failed; retrying until its lease runs out", backend, LockArguments.shorten(lease.key), e);
    }
  }

  /** Without a watchdog: marks the lease lost once it ran out, even if nobody asks the handle. */
  private void checkExpiry(Lease lease) {
    if (!lease.usable()) {
      return;
    }
    if (leaseRanOut(lease)) {
      markLost(lease, "the lease ran out without a renewal");
      return;
    }
    try {
      lease.timer = scheduler.schedule(() -> checkExpiry(lease),
          Math.max(leaseLeftNanos(lease), TimeUnit.MILLISECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      log.debug("{} lock engine closed; no expiry check for '{}'", backend, LockArguments.shorten(lease.key));
    }
  }

  boolean leaseRanOut(Lease lease) {
    return leaseLeftNanos(lease) <= 0;
  }

  private long leaseLeftNanos(Lease lease) {
    return leaseNanos - (ticker.nanoTime() - lease.confirmedNanos());
  }

  /**
   * Marks the lease lost, once: the listener hears it first (whoever sees isLost() can rely on
   * that), then the current holder is marked lost and its local turn passes on; a lease kept
   * between two local holders is let go.
   */
  void markLost(Lease lease, String why) {
    if (lease.ended.get() || !lease.lost.compareAndSet(false, true)) {
      return;
    }
    lease.cancelTimer();
    LeaseLockHandle holder = lease.current;
    long token = holder != null ? holder.token() : lease.grant.top();
    log.warn("{} lock '{}' (token {}) lost: {}", backend, LockArguments.shorten(lease.key), token, why);
    listener.onLeaseLost(backend, lease.key, token);
    if (holder != null) {
      holder.markLost();
      holder.releaseLocal();
    } else {
      runInBackground(() -> releaseParked(lease.key));
    }
  }

  // ---- helpers ----

  private boolean runInBackground(Runnable task) {
    if (closed) {
      return false;
    }
    try {
      scheduler.execute(task);
      return true;
    } catch (RejectedExecutionException e) {
      log.debug("{} lock engine closed; skipped background task", backend, e);
      return false;
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(backend + " lock service on " + store.describe() + " is closed");
    }
  }

  private Duration elapsed(long startNanos) {
    return Duration.ofNanos(Math.max(0, ticker.nanoTime() - startNanos));
  }

  /** Callers of this process queued for {@code key} now (the holder not counted). */
  public int waiting(String key) {
    return localLocks.waiting(key);
  }

  /** Leases kept in memory now; for tests of the bound. */
  public int leaseCount() {
    return leases.size();
  }

  /** Keys remembered for yielding now; for tests of the bound. */
  public int yieldCount() {
    return yields.size();
  }
}
