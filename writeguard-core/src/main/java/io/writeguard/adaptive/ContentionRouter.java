package io.writeguard.adaptive;

import io.writeguard.Ticker;
import io.writeguard.monitor.ConflictWindow;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Decides, per key, whether the next update goes optimistic or through a lock.
 *
 * <p>Why per key and why this shape: a collection is rarely hot everywhere; one document (a
 * popular post, a shared balance) takes the conflicts while the rest stay quiet. Optimistic
 * updates are cheapest for the quiet keys, a lock is cheapest for the hot one (it turns a storm
 * of wasted retries into a queue). Memory stays bounded: a key is tracked only after its first
 * conflict (or locked update), and once {@code maxTrackedKeys} are tracked, adding one first
 * drops idle keys: optimistic ones and those whose locked time is over, then, if still full,
 * idle locked ones too. Only a key with a locked update in flight is never dropped, so at most
 * {@code maxTrackedKeys} plus the locked updates running at that moment are tracked. Dropping a
 * locked key is safe because both routes run the same versioned update: the key merely goes
 * back to optimistic updates (more conflicts, never a lost update) until its conflicts lock it
 * again. While a key is locked its conflicts vanish (the lock serialises this process), so
 * the way back is judged on contention instead: how often a locked update found another update
 * of the same key already in flight. See {@link AdaptivePolicy} for the hysteresis.
 *
 * <p>Thread-safe. State changes of one key are made under that key's entry monitor.
 */
public final class ContentionRouter {
  private final AdaptivePolicy policy;
  private final Ticker ticker;
  private final Map<String, KeyState> keys = new ConcurrentHashMap<>();

  public ContentionRouter(AdaptivePolicy policy, Ticker ticker) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  /** The route for {@code key}'s next update. */
  public Route route(String key) {
    KeyState state = keys.get(key);
    if (state == null) {
      return Route.OPTIMISTIC;
    }
    synchronized (state) {
      // nanoTime values are compared by difference only: they may wrap past Long.MAX_VALUE.
      if (state.route == Route.LOCKED && ticker.nanoTime() - state.lockedUntil >= 0) {
        double contention = state.lockedOps == 0 ? 0.0 : (double) state.contendedOps / state.lockedOps;
        if (contention < policy.calmContention()) {
          state.route = Route.OPTIMISTIC;
          state.leftLockAt = ticker.nanoTime();
          state.window = new ConflictWindow(policy.window(), 5, ticker);
        } else {
          state.lockedUntil = ticker.nanoTime() + state.holdNanos;
        }
        state.lockedOps = 0;
        state.contendedOps = 0;
      }
      return state.route;
    }
  }

  /** Records an optimistic update of {@code key} that took {@code attempts} attempts. */
  public void recordOptimistic(String key, int attempts) {
    KeyState state = keys.get(key);
    if (state == null) {
      if (attempts <= 1) {
        return; // a quiet key costs nothing
      }
      trimIfFull();
      state = keys.computeIfAbsent(key, k -> new KeyState(policy, ticker));
    }
    synchronized (state) {
      for (int i = 0; i < attempts; i++) {
        state.window.recordAttempt();
      }
      for (int i = 1; i < attempts; i++) {
        state.window.recordConflict();
      }
      if (state.route == Route.OPTIMISTIC
          && state.window.attempts() >= policy.minAttempts()
          && state.window.ratio() > policy.threshold()) {
        long now = ticker.nanoTime();
        boolean relapse = state.leftLockAt != Long.MIN_VALUE && now - state.leftLockAt < state.holdNanos;
        if (relapse) {
          state.holdNanos = Math.min(state.holdNanos * 2, policy.maxLockedTime().toNanos());
        }
        state.route = Route.LOCKED;
        state.lockedUntil = now + state.holdNanos;
      }
    }
  }

  /**
   * Marks the start of a locked update; call {@link #lockedDone} when it ends. Counts whether
   * another update of the key was already in flight (contention).
   */
  public void lockedStarted(String key) {
    while (true) {
      KeyState state = keys.get(key);
      if (state == null) {
        trimIfFull();
        state = keys.computeIfAbsent(key, k -> new KeyState(policy, ticker));
      }
      synchronized (state) {
        if (keys.get(key) != state) {
          continue; // trimmed between our lookup and the monitor: count on the live entry
        }
        // Under the monitor, so a trim (which checks inFlight under it) never drops a key whose
        // update is in flight and lockedDone always finds this entry.
        boolean contended = state.inFlight.getAndIncrement() > 0;
        state.lockedOps++;
        if (contended) {
          state.contendedOps++;
        }
        return;
      }
    }
  }

  /** Marks the end of a locked update started with {@link #lockedStarted}. */
  public void lockedDone(String key) {
    KeyState state = keys.get(key);
    if (state != null) {
      state.inFlight.decrementAndGet();
    }
  }

  /** How many keys are tracked now (for tests and diagnostics). */
  public int trackedKeys() {
    return keys.size();
  }

  private void trimIfFull() {
    if (keys.size() < policy.maxTrackedKeys()) {
      return;
    }
    long now = ticker.nanoTime();
    // First what costs nothing to forget: optimistic keys, and locked ones whose locked time is
    // over (route() would judge them afresh anyway).
    evictIdle(s -> s.route == Route.OPTIMISTIC || now - s.lockedUntil >= 0);
    // Then any idle key: a key locked now loses its state, not its safety (see class doc).
    evictIdle(s -> true);
  }

  private void evictIdle(Predicate<KeyState> evictable) {
    for (Iterator<Map.Entry<String, KeyState>> it = keys.entrySet().iterator(); it.hasNext()
        && keys.size() >= policy.maxTrackedKeys(); ) {
      Map.Entry<String, KeyState> entry = it.next();
      KeyState s = entry.getValue();
      synchronized (s) {
        if (s.inFlight.get() == 0 && evictable.test(s)) {
          keys.remove(entry.getKey(), s); // only this entry, not one added since
        }
      }
    }
  }

  private static final class KeyState {
    final AtomicInteger inFlight = new AtomicInteger();
    Route route = Route.OPTIMISTIC;
    ConflictWindow window;
    long holdNanos;
    long lockedUntil;
    long leftLockAt = Long.MIN_VALUE;
    long lockedOps;
    long contendedOps;

    KeyState(AdaptivePolicy policy, Ticker ticker) {
      window = new ConflictWindow(policy.window(), 5, ticker);
      holdNanos = policy.minLockedTime().toNanos();
    }
  }
}
