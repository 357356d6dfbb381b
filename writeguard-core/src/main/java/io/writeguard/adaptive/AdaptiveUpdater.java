package io.writeguard.adaptive;

import io.writeguard.Ticker;
import io.writeguard.internal.DocumentKey;
import io.writeguard.lock.LockService;
import io.writeguard.update.LockedUpdater;
import io.writeguard.update.Mutator;
import io.writeguard.update.RetriesExhaustedException;
import io.writeguard.update.TypedUpdater;
import io.writeguard.update.UpdateOutcome;
import io.writeguard.update.Updater;
import io.writeguard.update.UpdaterBuilder;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * Updates optimistically, and routes a key through a lock while it is hot.
 *
 * <p>The optimistic route is the {@link VersionedUpdater}; the locked route is a
 * {@link LockedUpdater} over the same documents with the same version policy, retry policy,
 * listener and clock ({@link LockedUpdater#builder(VersionedUpdater, LockService)}), fencing
 * off and the version filter on: it takes the key's lock and does the versioned
 * read-change-write inside it. That is deliberate. The lock only removes contention (waiting
 * in a queue instead of burning retries); correctness never rests on it. The version in the
 * write's filter is the fence: a holder whose lease expired while another holder wrote finds
 * the version moved, re-reads and applies its pure mutation to the new state instead of
 * overwriting it, and optimistic writers in other processes (or in the moment a key switches
 * route) are safe for the same reason. So a switch needs no coordination and can never lose
 * an update.
 *
 * <p>The decision per key is the {@link ContentionRouter}'s ({@link AdaptivePolicy} has the
 * thresholds and the hysteresis).
 *
 * <p>Group commit. The optimistic route combines concurrent updates of one document as its
 * {@link VersionedUpdater} is configured to. The locked route, with {@link Builder#groupCommit}
 * on (the default), is {@link LockedUpdater}'s group commit: the callers of this process queue
 * per document and the first takes the lock once for the whole queue, so one lock hand-off and
 * one read/write serve a batch. Its rules are {@link LockedUpdater}'s: a lock not had in time
 * fails the batch with {@code LockTimeoutException}, as does a queue that did not clear within
 * the lock wait plus the retry deadline; a leader interrupted while waiting for the lock sets
 * the interrupt aside until its batch is done and fails nobody. Thread-safe.
 */
public final class AdaptiveUpdater implements Updater {
  private final VersionedUpdater updater;
  private final LockedUpdater locked;
  private final ContentionRouter router;
  private final String lockPrefix;

  private AdaptiveUpdater(Builder b) {
    this.updater = b.updater;
    this.router = new ContentionRouter(b.policy, b.ticker);
    this.lockPrefix = b.lockPrefix == null ? updater.scope().collection() + ":" : b.lockPrefix;
    this.locked = b.lockedRoute.lockPrefix(lockPrefix).build(); // one key for router and lock
  }

  /**
   * @param updater the versioned updater both routes use (its retry policy bounds the
   *     optimistic route; its listener hears every attempt)
   * @param locks where hot keys are locked: in-process for one process, MongoDB or Redis
   *     lease locks for several
   */
  public static Builder builder(VersionedUpdater updater, LockService locks) {
    return new Builder(updater, locks);
  }

  /** A typed adaptive updater with default settings over {@code updater}'s collection. */
  public static <T> TypedAdaptiveUpdater<T> typed(TypedUpdater<T> updater, LockService locks) {
    return typed(updater, locks, b -> b);
  }

  /**
   * A typed adaptive updater over {@code updater}'s collection, with settings applied to the
   * builder of the Document-based one it runs: e.g. {@code typed(u, locks, b ->
   * b.lockWait(Duration.ofSeconds(2)))}. See {@link TypedAdaptiveUpdater}.
   */
  public static <T> TypedAdaptiveUpdater<T> typed(
      TypedUpdater<T> updater, LockService locks, UnaryOperator<Builder> settings) {
    Objects.requireNonNull(updater, "updater");
    Objects.requireNonNull(settings, "settings");
    Builder builder = Objects.requireNonNull(
        settings.apply(builder(updater.untyped(), locks)), "settings returned null");
    return new TypedAdaptiveUpdater<>(builder.build(), updater.documents(),
        updater.versionPolicy().field());
  }

  /**
   * Updates document {@code id} by the route its key is on now.
   *
   * @throws io.writeguard.update.UpdateFailedException as {@link VersionedUpdater#update}
   * @throws io.writeguard.lock.LockTimeoutException if a hot key's lock was not had in time
   */
  @Override
  public UpdateOutcome update(Object id, Mutator mutator) {
    return run(id, mutator, true);
  }

  /**
   * Like {@link #update} with {@link VersionedUpdater#updateOne}: one less document on the wire,
   * no document in the outcome.
   */
  @Override
  public UpdateOutcome updateOne(Object id, Mutator mutator) {
    return run(id, mutator, false);
  }

  private UpdateOutcome run(Object id, Mutator mutator, boolean returnDocument) {
    Objects.requireNonNull(id, "id");
    // Keyed as MongoDB tells documents apart (7 and 7L are one document, two Documents with
    // their fields in another order are two): one route, one queue and one lock per document.
    DocumentKey document = DocumentKey.of(id, updater.codecRegistry());
    String key = lockKey(document);
    if (router.route(key) == Route.OPTIMISTIC) {
      try {
        UpdateOutcome outcome = write(id, mutator, returnDocument);
        router.recordOptimistic(key, outcome.attempts());
        return outcome;
      } catch (RetriesExhaustedException e) {
        router.recordOptimistic(key, e.attempts());
        throw e;
      }
    }
    router.lockedStarted(key);
    try {
      return returnDocument ? locked.update(id, mutator) : locked.updateOne(id, mutator);
    } finally {
      router.lockedDone(key);
    }
  }

  private UpdateOutcome write(Object id, Mutator mutator, boolean returnDocument) {
    return returnDocument ? updater.update(id, mutator) : updater.updateOne(id, mutator);
  }

  /** Updates of {@code id} queued on the locked route (for tests). */
  int waiting(Object id) {
    return locked.waiting(id);
  }

  /** The route {@code id}'s next update would take (for reports and tests). */
  public Route routeOf(Object id) {
    return router.route(lockKey(DocumentKey.of(id, updater.codecRegistry())));
  }

  private String lockKey(DocumentKey document) {
    return lockPrefix + document.lockText();
  }

  /**
   * Builds an {@link AdaptiveUpdater}. The locked route's settings (lock wait, lock prefix,
   * group commit and its bound) go straight to the {@link LockedUpdater.Builder} of that route,
   * which checks them as it checks a {@link LockedUpdater}'s; the router's (policy, clock) are
   * this builder's own. Not thread-safe.
   */
  public static final class Builder {
    private final VersionedUpdater updater;
    private final LockedUpdater.Builder lockedRoute;
    private AdaptivePolicy policy = AdaptivePolicy.defaults();
    private Ticker ticker = Ticker.system();
    private String lockPrefix;

    private Builder(VersionedUpdater updater, LockService locks) {
      this.updater = Objects.requireNonNull(updater, "updater");
      this.lockedRoute = LockedUpdater.builder(updater, Objects.requireNonNull(locks, "locks"))
          .fencing(false); // the version is the fence, as for the optimistic route's writes
    }

    public Builder policy(AdaptivePolicy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** The clock of the router's decisions; the routes' clock is the {@link VersionedUpdater}'s. */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** How long a hot key's update waits for its lock: {@link LockedUpdater.Builder#lockWait}. */
    public Builder lockWait(Duration wait) {
      lockedRoute.lockWait(wait);
      return this;
    }

    /** Prefix of lock keys, and of the router's keys: {@link LockedUpdater.Builder#lockPrefix}. */
    public Builder lockPrefix(String prefix) {
      lockedRoute.lockPrefix(prefix);
      this.lockPrefix = prefix;
      return this;
    }

    /**
     * Whether the locked route runs concurrent updates of one document as a batch under one
     * lock hold ({@link UpdaterBuilder#groupCommit}, default true); the optimistic route
     * follows the {@link VersionedUpdater}'s own setting.
     */
    public Builder groupCommit(boolean groupCommit) {
      lockedRoute.groupCommit(groupCommit);
      return this;
    }

    /**
     * The most updates the locked route runs under one lock hold:
     * {@link UpdaterBuilder#maxBatchSize}.
     */
    public Builder maxBatchSize(int maxBatchSize) {
      lockedRoute.maxBatchSize(maxBatchSize);
      return this;
    }

    public AdaptiveUpdater build() {
      return new AdaptiveUpdater(this);
    }
  }
}
