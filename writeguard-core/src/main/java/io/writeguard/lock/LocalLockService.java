package io.writeguard.lock;

import io.writeguard.Ticker;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.internal.Checks;
import io.writeguard.internal.LockArguments;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-key exclusive locks inside one JVM: the seed's {@code DocumentLocker}, done right.
 *
 * <p>Why it is built this way:
 *
 * <ul>
 *   <li><b>Keys by value.</b> Keys are strings in a {@link ConcurrentHashMap}, so two requests
 *       for the same document id meet on the same entry (the seed kept {@code ObjectId} objects
 *       in a {@code Set}, compared by reference).
 *   <li><b>One critical section per key.</b> Every state change of a key (take, queue, hand
 *       over, give up, drop) runs inside {@code map.compute(key, ...)}, which the map executes
 *       atomically per key. That single rule gives: an entry exists exactly while the key is
 *       held, so idle keys leave nothing behind; and a waiter giving up can never race a
 *       hand-off (see {@link #giveUp}).
 *   <li><b>FIFO hand-off, no polling, no barging.</b> A release does not "free" the key: it
 *       passes ownership directly to the oldest waiter and wakes only that one. A caller
 *       arriving in between finds the key held, so it cannot overtake the queue, and two
 *       waiters can never both take the lock (the seed woke every poller, and each took it).
 *   <li><b>The handle owns the lock.</b> Not the thread: any thread may close the handle, once;
 *       a second close does nothing and can never free a later holder's lock.
 *   <li><b>Fencing tokens</b> come from one counter for all keys (see {@code FencingTokens}).
 * </ul>
 *
 * <p>Stored per held key: {@code key -> {holder: handle, waiters: [oldest, ..., newest]}}.
 *
 * <p>Only for one process: another JVM does not see these locks. Not reentrant. Thread-safe.
 */
public final class LocalLockService implements LockService {
  /** This service's {@link #backend()}: {@value}. */
  public static final String BACKEND = "local";

  private final ConcurrentHashMap<String, KeyState> keys = new ConcurrentHashMap<>();
  private final Ticker ticker;
  private final WriteGuardListener listener;
  private final int maxKeyLength;
  private final FencingTokens tokens;

  private LocalLockService(Builder builder) {
    this.ticker = builder.ticker;
    this.listener = WriteGuardListener.safe(builder.listener);
    this.maxKeyLength = builder.maxKeyLength;
    this.tokens = new FencingTokens(builder.firstToken);
  }

  /** A service with the defaults: system ticker, no listener, keys up to 1024 chars. */
  public static LocalLockService create() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Held state of one key. Only touched inside {@code keys.compute(key, ...)}. */
  private static final class KeyState {
    LocalLockHandle holder;
    final ArrayDeque<LockWaiter<LocalLockHandle>> waiters = new ArrayDeque<>(2);

    KeyState(LocalLockHandle holder) {
      this.holder = holder;
    }
  }

  /**
   * Waits up to {@code requestedWait} (measured on the builder's ticker), or to the calling
   * thread's deadline if that comes first, for {@code key}, in FIFO order with every other
   * waiter for it. The timeout error names the key, the wait and how many callers were queued
   * for the key when this one gave up, itself included.
   */
  @Override
  public LockHandle acquire(String key, Duration requestedWait) {
    LockArguments.checkKey("key", key, maxKeyLength);
    Duration waitTimeout = LockArguments.waitFor(requestedWait);
    long timeoutNanos = LockArguments.checkTimeoutNanos(waitTimeout);
    if (Thread.interrupted()) {
      throw interrupted(key);
    }
    long start = ticker.nanoTime();
    LockWaiter<LocalLockHandle> waiter = new LockWaiter<>();
    LocalLockHandle now = takeOrQueue(key, waiter);
    if (now != null) {
      listener.onLockWait(BACKEND, key, Duration.ZERO, true);
      return now;
    }
    LockWaiter.Outcome outcome = waiter.await(ticker, start, timeoutNanos);
    if (outcome == LockWaiter.Outcome.GRANTED) {
      return granted(key, start, waiter.granted());
    }
    int[] queued = {0};
    LocalLockHandle handedOver = giveUp(key, waiter, queued);
    if (outcome == LockWaiter.Outcome.INTERRUPTED) {
      if (handedOver != null) {
        handedOver.close(); // the interrupt wins: pass the lock on to the next waiter
      }
      throw interrupted(key);
    }
    if (handedOver != null) {
      return granted(key, start, handedOver); // handed over as the deadline passed: keep it
    }
    listener.onLockWait(BACKEND, key, Duration.ofNanos(ticker.nanoTime() - start), false);
    throw new LockTimeoutException(BACKEND, key, waitTimeout, queued[0]);
  }

  /** Takes {@code key} if nobody holds it now; never waits and never jumps a queue. */
  @Override
  public Optional<LockHandle> tryAcquire(String key) {
    LockArguments.checkKey("key", key, maxKeyLength);
    return Optional.ofNullable(takeOrQueue(key, null));
  }

  @Override
  public String backend() {
    return BACKEND;
  }

  /** How many callers are queued for {@code key} now (the holder not counted). */
  public int waiting(String key) {
    int[] count = {0};
    keys.computeIfPresent(key, (k, state) -> {
      count[0] = state.waiters.size();
      return state;
    });
    return count[0];
  }

  /** Number of held keys; idle keys have no entry. For tests. */
  int size() {
    return keys.size();
  }

  private LockHandle granted(String key, long start, LocalLockHandle handle) {
    listener.onLockWait(BACKEND, key, Duration.ofNanos(ticker.nanoTime() - start), true);
    return handle;
  }

  /** Returns a handle if {@code key} was free; otherwise queues {@code waiter} (if any). */
  private LocalLockHandle takeOrQueue(String key, LockWaiter<LocalLockHandle> waiter) {
    LocalLockHandle[] taken = {null};
    keys.compute(key, (k, state) -> {
      if (state == null) {
        taken[0] = newHandle(k);
        return new KeyState(taken[0]);
      }
      if (waiter != null) {
        state.waiters.addLast(waiter);
      }
      return state;
    });
    return taken[0];
  }

  /**
   * Leaves the queue after a timeout or an interrupt, unless the lock was handed over already.
   *
   * <p>Guard against the race with {@link #release}: the releaser may grant this waiter at the
   * very instant its deadline passes. Both sides decide inside {@code keys.compute} for the same
   * key, so exactly one of them happens first: either the releaser granted us (then we own the
   * lock and return its handle, and the caller keeps it or passes it on), or we left the queue
   * (then the releaser will never see us). The lock is never lost and never held twice.
   *
   * @return the handle handed over before we could leave, or null if we left the queue
   */
  private LocalLockHandle giveUp(String key, LockWaiter<LocalLockHandle> waiter, int[] queued) {
    LocalLockHandle[] handedOver = {null};
    keys.computeIfPresent(key, (k, state) -> {
      handedOver[0] = waiter.granted();
      if (handedOver[0] == null) {
        queued[0] = state.waiters.size();
        state.waiters.remove(waiter);
      }
      return state;
    });
    return handedOver[0];
  }

  /** Called once per handle, by {@link LocalLockHandle#close()}. */
  void release(LocalLockHandle handle) {
    @SuppressWarnings("unchecked")
    LockWaiter<LocalLockHandle>[] next = new LockWaiter[1];
    keys.computeIfPresent(handle.key(), (k, state) -> {
      if (state.holder != handle) {
        return state; // cannot happen: a handle is released once, and only its own lock
      }
      LockWaiter<LocalLockHandle> oldest = state.waiters.pollFirst();
      if (oldest == null) {
        return null; // idle: drop the entry
      }
      state.holder = newHandle(k);
      oldest.grant(state.holder);
      next[0] = oldest;
      return state;
    });
    if (next[0] != null) {
      next[0].wake();
    }
    listener.onLockReleased(BACKEND, handle.key(), handle.token(),
        Duration.ofNanos(ticker.nanoTime() - handle.acquiredAtNanos()));
  }

  private LocalLockHandle newHandle(String key) {
    return new LocalLockHandle(this, key, tokens.next(), ticker.nanoTime());
  }

  private static WriteGuardInterruptedException interrupted(String key) {
    return new WriteGuardInterruptedException("waiting for local lock '" + LockArguments.shorten(key) + "'",
        new InterruptedException());
  }

  /** Not thread-safe; {@link #build()} copies the settings into an immutable service. */
  public static final class Builder {
    private Ticker ticker = Ticker.system();
    private WriteGuardListener listener = WriteGuardListener.NOOP;
    private int maxKeyLength = 1024;
    private long firstToken = FencingTokens.defaultFirst();

    private Builder() {}

    /** Where wait timeouts and hold times are measured; default {@link Ticker#system()}. */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
      return this;
    }

    /** Receives lock waits and releases; whatever it throws is logged and ignored. */
    public Builder listener(WriteGuardListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener must not be null");
      return this;
    }

    /** Longest accepted key; default 1024. */
    public Builder maxKeyLength(int maxKeyLength) {
      this.maxKeyLength = Checks.atLeast("maxKeyLength", maxKeyLength, 1);
      return this;
    }

    /**
     * The first fencing token. Default: wall-clock milliseconds shifted left by 20 bits, so a
     * restarted process keeps issuing higher tokens than its previous run.
     */
    public Builder firstToken(long firstToken) {
      this.firstToken = Checks.atLeast("firstToken", firstToken, 1);
      return this;
    }

    public LocalLockService build() {
      return new LocalLockService(this);
    }
  }
}
