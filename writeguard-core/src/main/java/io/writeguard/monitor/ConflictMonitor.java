package io.writeguard.monitor;

import io.writeguard.Ticker;
import io.writeguard.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts what WriteGuard's updates and locks do, per collection and strategy, and spots a
 * retry storm.
 *
 * <p>Per {@link OperationScope} it keeps cumulative counts (attempts, conflicts, retries,
 * exhausted, successes, failures, fenced rejections, latency), a sliding-window conflict ratio
 * ({@link ConflictWindow}) and the hottest keys in bounded memory ({@link HotKeys}); per lock
 * backend it counts waits, timeouts, wait time and lost leases. Scopes are few (collection x
 * strategy); keys are many, so they are only ever held by the bounded hot-key tracker.
 *
 * <p><b>Retry storm.</b> When the window's ratio rises above the threshold (default 10%, the
 * seed article's figure) with at least {@code minAttempts} attempts in the window, one warning
 * is logged naming the collection, the ratio, the hottest keys and the advice for the
 * collection's {@link ChangeKind}; one info line follows when the ratio falls below the calm
 * threshold (default half the threshold) over at least as many attempts, or when the window
 * holds no attempts at all. The gap between the two is the hysteresis that keeps
 * a ratio hovering around 10% from flooding the log.
 *
 * <p>Thread-safe; register it as (or inside) the {@link WriteGuardListener} of the components
 * it should watch.
 */
public final class ConflictMonitor implements WriteGuardListener {
  private static final Logger log = LoggerFactory.getLogger(ConflictMonitor.class);

  private final double threshold;
  private final double calmThreshold;
  private final long minAttempts;
  private final Duration window;
  private final int buckets;
  private final int hotKeyCapacity;
  private final Ticker ticker;
  private final StormListener stormListener;
  private final Map<String, ChangeKind> changeKinds;
  private final Map<OperationScope, ScopeStats> scopes = new ConcurrentHashMap<>();
  private final Map<String, LockStats> locks = new ConcurrentHashMap<>();

  private ConflictMonitor(Builder b) {
    this.threshold = b.threshold;
    this.calmThreshold = b.calmThreshold < 0 ? b.threshold / 2 : b.calmThreshold;
    this.minAttempts = b.minAttempts;
    this.window = b.window;
    this.buckets = b.buckets;
    this.hotKeyCapacity = b.hotKeyCapacity;
    this.ticker = b.ticker;
    this.stormListener = b.stormListener;
    this.changeKinds = Map.copyOf(b.changeKinds);
  }

  public static Builder builder() {
    return new Builder();
  }

  // ---- events ----

  @Override
  public void onAttempt(OperationScope scope, Object key, int attempt) {
    ScopeStats s = stats(scope);
    s.attempts.increment();
    s.window.recordAttempt();
    evaluate(scope, s);
  }

  @Override
  public void onConflict(OperationScope scope, Object key, int attempt) {
    ScopeStats s = stats(scope);
    s.conflicts.increment();
    s.window.recordConflict();
    s.hotKeys.record(String.valueOf(key));
    evaluate(scope, s);
  }

  @Override
  public void onRetry(OperationScope scope, Object key, int attempt, Duration backoff) {
    stats(scope).retries.increment();
  }

  @Override
  public void onSuccess(OperationScope scope, Object key, int attempts, Duration elapsed) {
    ScopeStats s = stats(scope);
    s.successes.increment();
    s.latencyNanos.add(elapsed.toNanos());
    s.maxLatencyNanos.accumulate(elapsed.toNanos());
  }

  @Override
  public void onExhausted(OperationScope scope, Object key, int attempts, Duration elapsed) {
    stats(scope).exhausted.increment();
  }

  @Override
  public void onFailure(OperationScope scope, Object key, Throwable error) {
    stats(scope).failures.increment();
  }

  @Override
  public void onFencedRejection(OperationScope scope, Object key, long token) {
    stats(scope).fencedRejections.increment();
  }

  @Override
  public void onLockWait(String backend, String key, Duration waited, boolean acquired) {
    LockStats s = locks.computeIfAbsent(backend, b -> new LockStats());
    s.waits.increment();
    if (!acquired) {
      s.timeouts.increment();
    }
    s.waitNanos.add(waited.toNanos());
    s.maxWaitNanos.accumulate(waited.toNanos());
  }

  @Override
  public void onLeaseLost(String backend, String key, long token) {
    locks.computeIfAbsent(backend, b -> new LockStats()).leasesLost.increment();
  }

  // ---- reading ----

  /** The counters of every scope seen so far. */
  public List<ScopeSnapshot> scopes() {
    List<ScopeSnapshot> out = new ArrayList<>();
    scopes.forEach((scope, s) -> {
      evaluate(scope, s);
      out.add(s.snapshot(scope));
    });
    return out;
  }

  /** The counters of one scope; zeros if it was never seen. */
  public ScopeSnapshot scope(OperationScope scope) {
    ScopeStats s = scopes.get(scope);
    if (s == null) {
      return new ScopeStats(this).snapshot(scope);
    }
    evaluate(scope, s);
    return s.snapshot(scope);
  }

  /** The counters of every lock backend seen so far. */
  public Map<String, LockSnapshot> locks() {
    return locks.entrySet().stream()
        .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, e -> e.getValue().snapshot()));
  }

  /** True while {@code scope} is in a retry storm. */
  public boolean inStorm(OperationScope scope) {
    ScopeStats s = scopes.get(scope);
    return s != null && s.storm.get();
  }

  /** The configured storm threshold. */
  public double threshold() {
    return threshold;
  }

  private ScopeStats stats(OperationScope scope) {
    return scopes.computeIfAbsent(scope, s -> new ScopeStats(this));
  }

  private void evaluate(OperationScope scope, ScopeStats s) {
    long attempts = s.window.attempts();
    double ratio = s.window.ratio();
    if (!s.storm.get()) {
      if (attempts >= minAttempts && ratio > threshold && s.storm.compareAndSet(false, true)) {
        String advice = changeKinds.getOrDefault(scope.collection(), ChangeKind.GENERAL).advice();
        String hottest = s.hotKeys.top(3).stream()
            .map(e -> e.key() + " (" + e.count() + ")")
            .collect(Collectors.joining(", "));
        log.warn("retry storm on collection '{}' (strategy {}): {}% of {} attempts in the last {}s"
                + " conflicted (threshold {}%); hottest keys: {}. Advice: {}",
            scope.collection(), scope.strategy(), percent(ratio), attempts,
            window.toSeconds(), percent(threshold), hottest.isEmpty() ? "-" : hottest, advice);
        notifyStorm(() -> stormListener.onStormStarted(scope, ratio, attempts, advice));
      }
    } else if ((attempts == 0 || (attempts >= minAttempts && ratio < calmThreshold))
        && s.storm.compareAndSet(true, false)) {
      // Calm is judged on as many samples as a storm is, so the first few attempts after a
      // pause cannot end it; a window with no traffic at all has no storm.
      log.info("retry storm on collection '{}' (strategy {}) has calmed: conflict ratio {}%",
          scope.collection(), scope.strategy(), percent(ratio));
      notifyStorm(() -> stormListener.onStormEnded(scope, ratio));
    }
  }

  private static void notifyStorm(Runnable call) {
    try {
      call.run();
    } catch (Exception | Error e) { // an undeclared checked exception too; a VM error goes on
      if (e instanceof VirtualMachineError vm) {
        throw vm;
      }
      log.warn("storm listener threw; ignored", e);
    }
  }

  private static String percent(double ratio) {
    return String.format(java.util.Locale.ROOT, "%.1f", ratio * 100);
  }

  /** Cumulative counts of one scope, plus its window ratio and hottest keys. */
  public record ScopeSnapshot(
      OperationScope scope,
      long attempts,
      long conflicts,
      long retries,
      long exhausted,
      long successes,
      long failures,
      long fencedRejections,
      Duration meanLatency,
      Duration maxLatency,
      double windowConflictRatio,
      boolean inStorm,
      List<HotKeys.Entry> hottestKeys) {

    /** Conflicts divided by attempts since the start; 0 without attempts. */
    public double conflictRatio() {
      return attempts == 0 ? 0.0 : (double) conflicts / attempts;
    }
  }

  /** Cumulative counts of one lock backend. */
  public record LockSnapshot(long waits, long timeouts, Duration totalWait, Duration maxWait,
      long leasesLost) {}

  private static final class ScopeStats {
    final LongAdder attempts = new LongAdder();
    final LongAdder conflicts = new LongAdder();
    final LongAdder retries = new LongAdder();
    final LongAdder exhausted = new LongAdder();
    final LongAdder successes = new LongAdder();
    final LongAdder failures = new LongAdder();
    final LongAdder fencedRejections = new LongAdder();
    final LongAdder latencyNanos = new LongAdder();
    final LongAccumulator maxLatencyNanos = new LongAccumulator(Math::max, 0);
    final AtomicBoolean storm = new AtomicBoolean();
    final ConflictWindow window;
    final HotKeys hotKeys;

    ScopeStats(ConflictMonitor m) {
      window = new ConflictWindow(m.window, m.buckets, m.ticker);
      hotKeys = new HotKeys(m.hotKeyCapacity);
    }

    ScopeSnapshot snapshot(OperationScope scope) {
      long ok = successes.sum();
      return new ScopeSnapshot(scope, attempts.sum(), conflicts.sum(), retries.sum(),
          exhausted.sum(), ok, failures.sum(), fencedRejections.sum(),
          Duration.ofNanos(ok == 0 ? 0 : latencyNanos.sum() / ok),
          Duration.ofNanos(maxLatencyNanos.get()), window.ratio(), storm.get(), hotKeys.top(10));
    }
  }

  private static final class LockStats {
    final LongAdder waits = new LongAdder();
    final LongAdder timeouts = new LongAdder();
    final LongAdder waitNanos = new LongAdder();
    final LongAccumulator maxWaitNanos = new LongAccumulator(Math::max, 0);
    final LongAdder leasesLost = new LongAdder();

    LockSnapshot snapshot() {
      return new LockSnapshot(waits.sum(), timeouts.sum(), Duration.ofNanos(waitNanos.sum()),
          Duration.ofNanos(maxWaitNanos.get()), leasesLost.sum());
    }
  }

  /** Builds a {@link ConflictMonitor}. Not thread-safe; {@link #build()} copies its state. */
  public static final class Builder {
    private double threshold = 0.10;
    private double calmThreshold = -1;
    private long minAttempts = 50;
    private Duration window = Duration.ofSeconds(10);
    private int buckets = 10;
    private int hotKeyCapacity = 64;
    private Ticker ticker = Ticker.system();
    private StormListener stormListener = StormListener.NOOP;
    private final Map<String, ChangeKind> changeKinds = new HashMap<>();

    private Builder() {}

    /** The conflict ratio above which a storm starts; default 0.10. */
    public Builder threshold(double ratio) {
      this.threshold = Checks.between("threshold", ratio, 0.0, 1.0);
      return this;
    }

    /** The ratio below which a storm ends; default half the threshold. */
    public Builder calmThreshold(double ratio) {
      this.calmThreshold = Checks.between("calmThreshold", ratio, 0.0, 1.0);
      return this;
    }

    /** Attempts needed inside the window before a ratio is judged; default 50. */
    public Builder minAttempts(long attempts) {
      this.minAttempts = Checks.atLeast("minAttempts", attempts, 1);
      return this;
    }

    /** The sliding window and how many buckets it slides by; default 10 s in 10 buckets. */
    public Builder window(Duration window, int buckets) {
      this.window = Checks.positive("window", window);
      this.buckets = Checks.atLeast("buckets", buckets, 1);
      return this;
    }

    /** How many keys the hot-key tracker keeps per scope; default 64. */
    public Builder hotKeyCapacity(int capacity) {
      this.hotKeyCapacity = Checks.atLeast("hotKeyCapacity", capacity, 1);
      return this;
    }

    public Builder ticker(Ticker ticker) {
      this.ticker = java.util.Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    /** Told when a storm starts or ends, beside the log lines. */
    public Builder stormListener(StormListener listener) {
      this.stormListener = java.util.Objects.requireNonNull(listener, "stormListener");
      return this;
    }

    /** Declares what {@code collection}'s changes are, for the storm advice; default GENERAL. */
    public Builder changeKind(String collection, ChangeKind kind) {
      changeKinds.put(Checks.notBlank("collection", collection), java.util.Objects.requireNonNull(kind));
      return this;
    }

    public ConflictMonitor build() {
      if (calmThreshold > threshold) {
        throw new IllegalArgumentException("calmThreshold must be <= threshold (" + threshold
            + "), was " + calmThreshold);
      }
      return new ConflictMonitor(this);
    }
  }
}
