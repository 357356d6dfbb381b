package io.writeguard.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.writeguard.internal.Checks;
import io.writeguard.monitor.ConflictMonitor;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Publishes WriteGuard's listener events as Micrometer meters.
 *
 * <p>Meter names (with the default prefix {@code writeguard}; Prometheus adds {@code _total}
 * to counters and {@code _seconds} to timers):
 * <pre>
 * writeguard.update.attempts     counter  collection, strategy
 * writeguard.update.conflicts    counter  collection, strategy
 * writeguard.update.retries      counter  collection, strategy
 * writeguard.update.exhausted    counter  collection, strategy
 * writeguard.update.failures     counter  collection, strategy
 * writeguard.update.latency      timer    collection, strategy   (acknowledged updates)
 * writeguard.update.batch.size   summary  collection, strategy   (updates per group-commit batch)
 * writeguard.fenced.rejections   counter  collection, strategy
 * writeguard.conflict.ratio      gauge    collection, strategy   (sliding window; needs a ConflictMonitor)
 * writeguard.lock.wait           timer    backend, outcome=acquired|timeout
 * writeguard.lock.held           timer    backend
 * writeguard.lock.leases.lost    counter  backend
 * writeguard.transaction.retries counter  label
 * </pre>
 * Tags are low-cardinality only: document ids and lock keys never become tags (the
 * {@link ConflictMonitor}'s hot-key list is where keys go). Every meter carries a description
 * (Prometheus's {@code # HELP}). The three timers publish a percentile histogram by default, so
 * a p99 can be computed server-side across instances ({@code histogram_quantile}); turn that off
 * with {@link Builder#percentileHistograms(boolean)}, or add fixed buckets with
 * {@link Builder#serviceLevelObjectives(Duration...)}.
 *
 * <p>Thread-safe; meters are created once per tag set and cached.
 */
public final class WriteGuardMetrics implements WriteGuardListener {
  /** Prometheus's {@code # HELP} text of each meter, by name without the prefix. */
  private static final Map<String, String> HELP = Map.ofEntries(
      Map.entry("update.attempts", "Update attempts (each try of a versioned or locked update)"),
      Map.entry("update.conflicts", "Attempts that found the version moved (a concurrent writer won)"),
      Map.entry("update.retries", "Attempts retried after a conflict or a retryable error"),
      Map.entry("update.exhausted", "Updates that ran out of attempts or time"),
      Map.entry("update.failures", "Updates that failed for another reason (not found, validation, backend)"),
      Map.entry("update.latency", "Time from the first attempt to the acknowledged write"),
      Map.entry("update.batch.size", "Updates of one document run together by group commit (1: alone)"),
      Map.entry("fenced.rejections", "Writes MongoDB refused because a newer lock holder had written"),
      Map.entry("lock.wait", "Time spent waiting for a lock, by outcome"),
      Map.entry("lock.held", "Time a lock was held, from acquisition to release"),
      Map.entry("lock.leases.lost", "Leases lost while held (renewal refused or lease ran out)"),
      Map.entry("transaction.retries", "Transaction retries, by the error label that caused them"));

  private final MeterRegistry registry;
  private final String prefix;
  private final ConflictMonitor monitor;
  private final boolean histograms;
  private final Duration[] slos;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final Map<OperationScope, DistributionSummary> batchSizes = new ConcurrentHashMap<>();
  private final Map<OperationScope, Boolean> gauges = new ConcurrentHashMap<>();

  private WriteGuardMetrics(Builder b) {
    this.registry = b.registry;
    this.prefix = b.prefix;
    this.monitor = b.monitor;
    this.histograms = b.histograms;
    this.slos = b.slos.clone();
  }

  public static Builder builder(MeterRegistry registry) {
    return new Builder(registry);
  }

  private Counter counter(String name, String... tags) {
    String id = name + String.join("\u0000", tags);
    return counters.computeIfAbsent(id, k -> Counter.builder(prefix + "." + name).tags(tags)
        .description(HELP.get(name)).register(registry));
  }

  private Timer timer(String name, String... tags) {
    String id = name + String.join("\u0000", tags);
    return timers.computeIfAbsent(id, k -> Timer.builder(prefix + "." + name).tags(tags)
        .description(HELP.get(name))
        .publishPercentileHistogram(histograms)
        .serviceLevelObjectives(slos)
        .register(registry));
  }

  private Counter scoped(String name, OperationScope scope) {
    if (monitor != null && gauges.putIfAbsent(scope, Boolean.TRUE) == null) {
      Gauge.builder(prefix + ".conflict.ratio", monitor, m -> m.scope(scope).windowConflictRatio())
          .tags("collection", scope.collection(), "strategy", scope.strategy())
          .description("conflicts / attempts over the monitor's sliding window")
          .register(registry);
    }
    return counter(name, "collection", scope.collection(), "strategy", scope.strategy());
  }

  @Override
  public void onAttempt(OperationScope scope, Object key, int attempt) {
    scoped("update.attempts", scope).increment();
  }

  @Override
  public void onConflict(OperationScope scope, Object key, int attempt) {
    scoped("update.conflicts", scope).increment();
  }

  @Override
  public void onRetry(OperationScope scope, Object key, int attempt, Duration backoff) {
    scoped("update.retries", scope).increment();
  }

  @Override
  public void onSuccess(OperationScope scope, Object key, int attempts, Duration elapsed) {
    timer("update.latency", "collection", scope.collection(), "strategy", scope.strategy())
        .record(elapsed);
  }

  @Override
  public void onExhausted(OperationScope scope, Object key, int attempts, Duration elapsed) {
    scoped("update.exhausted", scope).increment();
  }

  @Override
  public void onFailure(OperationScope scope, Object key, Throwable error) {
    scoped("update.failures", scope).increment();
  }

  @Override
  public void onBatch(OperationScope scope, Object key, int size) {
    batchSizes.computeIfAbsent(scope, s -> DistributionSummary
        .builder(prefix + ".update.batch.size")
        .tags("collection", s.collection(), "strategy", s.strategy())
        .description(HELP.get("update.batch.size"))
        .baseUnit("updates")
        .register(registry)).record(size);
  }

  @Override
  public void onFencedRejection(OperationScope scope, Object key, long token) {
    scoped("fenced.rejections", scope).increment();
  }

  @Override
  public void onLockWait(String backend, String key, Duration waited, boolean acquired) {
    timer("lock.wait", "backend", backend, "outcome", acquired ? "acquired" : "timeout").record(waited);
  }

  @Override
  public void onLockReleased(String backend, String key, long token, Duration held) {
    timer("lock.held", "backend", backend).record(held);
  }

  @Override
  public void onLeaseLost(String backend, String key, long token) {
    counter("lock.leases.lost", "backend", backend).increment();
  }

  @Override
  public void onTransactionRetry(String errorLabel, int attempt) {
    counter("transaction.retries", "label", errorLabel).increment();
  }

  /** Builds {@link WriteGuardMetrics}. Not thread-safe. */
  public static final class Builder {
    private final MeterRegistry registry;
    private String prefix = "writeguard";
    private ConflictMonitor monitor;
    private boolean histograms = true;
    private Duration[] slos = new Duration[0];

    private Builder(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** The name prefix of every meter; default {@code writeguard}. */
    public Builder prefix(String prefix) {
      Checks.notBlank("prefix", prefix);
      if (!prefix.matches("[a-zA-Z][a-zA-Z0-9_.]*")) {
        throw new IllegalArgumentException("prefix must be a dotted meter name, was '" + prefix + "'");
      }
      this.prefix = prefix;
      return this;
    }

    /** Adds the {@code conflict.ratio} gauge, read from this monitor's sliding window. */
    public Builder conflictMonitor(ConflictMonitor monitor) {
      this.monitor = Objects.requireNonNull(monitor, "monitor");
      return this;
    }

    /**
     * Whether the timers ({@code update.latency}, {@code lock.wait}, {@code lock.held}) publish
     * a percentile histogram (about 70 buckets per tag set in Prometheus); default true.
     */
    public Builder percentileHistograms(boolean enabled) {
      this.histograms = enabled;
      return this;
    }

    /** Fixed histogram buckets for the timers, e.g. your latency targets; default none. */
    public Builder serviceLevelObjectives(Duration... slos) {
      Objects.requireNonNull(slos, "slos");
      for (int i = 0; i < slos.length; i++) {
        Checks.positive("slos[" + i + "]", slos[i]);
      }
      this.slos = slos.clone();
      return this;
    }

    public WriteGuardMetrics build() {
      return new WriteGuardMetrics(this);
    }
  }
}
