package io.writeguard.update;

import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.internal.Checks;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.version.VersionPolicy;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * The settings every updater's builder shares: version policy, retry policy, listener, strategy
 * name, clock, sleeper, jitter, group commit and its batch bound. {@link VersionedUpdater.Builder}
 * and {@link LockedUpdater.Builder} are this class with their own settings added;
 * {@link io.writeguard.adaptive.AdaptiveUpdater}'s builder passes its locked route's group commit
 * and batch bound to a {@link LockedUpdater.Builder} (it does not extend this class: its routes
 * write with the settings of the {@link VersionedUpdater} it is built on, which a second version
 * or retry policy could only contradict). So each setting is checked here, once, when it is set,
 * with the same message whichever updater it is for.
 *
 * <p>Why a base class with a type parameter: every setter returns the concrete builder, so
 * {@code LockedUpdater.builder(c, locks).retryPolicy(r).lockWait(w)} chains a shared setting and
 * an updater's own in any order, as it did before the settings were shared. The defaults are
 * the same for every updater but the strategy name, which each updater's builder passes in
 * ({@code optimistic} for {@link VersionedUpdater}, {@code locked} for {@link LockedUpdater}).
 *
 * <p>Not thread-safe: configure a builder on one thread, then build. An updater copies the
 * settings when it is built (a builder changed afterwards changes no updater built before), and
 * the updaters themselves are thread-safe.
 *
 * @param <B> the concrete builder, which every setter returns
 */
public abstract class UpdaterBuilder<B extends UpdaterBuilder<B>> {
  /**
   * The default bound of a batch's size. Measured with the benchmark at 64 and 256 clients on
   * one hot document: 256 served more updates per second than 64 (fewer rounds, each one read
   * and one write), and no fewer at 16 or 64 clients, where batches stay smaller anyway.
   */
  public static final int DEFAULT_MAX_BATCH = 256;

  private VersionPolicy versionPolicy = VersionPolicy.defaults();
  private RetryPolicy retryPolicy = RetryPolicy.defaults();
  private WriteGuardListener listener = WriteGuardListener.NOOP;
  private String strategyName;
  private Ticker ticker = Ticker.system();
  private Sleeper sleeper = Sleeper.system();
  private RandomGenerator random; // null: each thread's ThreadLocalRandom
  private boolean groupCommit = true;
  private int maxBatchSize = DEFAULT_MAX_BATCH;

  /** Only this package's updaters extend it, each with its own default strategy name. */
  UpdaterBuilder(String defaultStrategyName) {
    this.strategyName = defaultStrategyName;
  }

  /** The version field and how a version is read; default {@link VersionPolicy#defaults()}. */
  public B versionPolicy(VersionPolicy versionPolicy) {
    this.versionPolicy = Objects.requireNonNull(versionPolicy, "versionPolicy");
    return self();
  }

  /**
   * Bounds the retries after a conflict or a transient error (for a {@link LockedUpdater}, the
   * re-reads under the lock after a writer that bypassed it moved the version) and how long a
   * caller may stay queued for group commit; default {@link RetryPolicy#defaults()}.
   */
  public B retryPolicy(RetryPolicy retryPolicy) {
    this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
    return self();
  }

  /**
   * Receives attempt, conflict, retry, outcome and batch events (from a {@link LockedUpdater},
   * fenced rejections too); whatever it throws is logged and ignored.
   */
  public B listener(WriteGuardListener listener) {
    this.listener = Objects.requireNonNull(listener, "listener");
    return self();
  }

  /**
   * The strategy named in events' {@link OperationScope}; default {@code optimistic} for a
   * {@link VersionedUpdater}, {@code locked} for a {@link LockedUpdater}.
   */
  public B strategyName(String strategyName) {
    this.strategyName = Checks.notBlank("strategyName", strategyName);
    return self();
  }

  /** The clock of deadlines, backoff and group commit's queue; default {@link Ticker#system()}. */
  public B ticker(Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    return self();
  }

  /** How a backoff waits; default {@link Sleeper#system()}. */
  public B sleeper(Sleeper sleeper) {
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    return self();
  }

  /**
   * The source of backoff jitter; it is shared by every thread that uses the updater, so it
   * must be thread-safe (e.g. {@code new java.util.Random(seed)}). Default: each thread's
   * {@code ThreadLocalRandom}.
   */
  public B random(RandomGenerator random) {
    this.random = Objects.requireNonNull(random, "random");
    return self();
  }

  /**
   * Whether concurrent updates of the same document through the updater are combined into one
   * read and one write (for a {@link LockedUpdater}, under one lock hold); default true. Off:
   * every update runs its own read and write, and takes the lock for itself.
   */
  public B groupCommit(boolean groupCommit) {
    this.groupCommit = groupCommit;
    return self();
  }

  /**
   * The most updates one batch combines (one lock hold, for a {@link LockedUpdater}); at least
   * 1; default {@value #DEFAULT_MAX_BATCH}.
   */
  public B maxBatchSize(int maxBatchSize) {
    this.maxBatchSize = Checks.atLeast("maxBatchSize", maxBatchSize, 1);
    return self();
  }

  /**
   * The version policy, retry policy, listener, strategy name, clock, sleeper and jitter of
   * {@code other}, an updater over the same documents; group commit and its bound stay this
   * builder's.
   */
  B writingAs(UpdaterSettings other) {
    this.versionPolicy = other.versionPolicy();
    this.retryPolicy = other.retryPolicy();
    this.listener = other.listener();
    this.strategyName = other.strategyName();
    this.ticker = other.ticker();
    this.sleeper = other.sleeper();
    this.random = other.random();
    return self();
  }

  /** The settings as they are now, for an updater to keep. */
  UpdaterSettings settings() {
    return new UpdaterSettings(versionPolicy, retryPolicy, listener, strategyName, ticker,
        sleeper, random, groupCommit, maxBatchSize);
  }

  @SuppressWarnings("unchecked") // B is the subclass: the constructor is this package's
  private B self() {
    return (B) this;
  }
}
