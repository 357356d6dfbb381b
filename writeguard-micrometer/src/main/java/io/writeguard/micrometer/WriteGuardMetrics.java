package io.writeguard.micrometer;

import io.micrometer.core.instrument.Counter;
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
 * writeguard.fenced.rejections   counter  collection, strategy
 * writeguard.conflict.ratio      gauge    collection, strategy   (sliding window; needs a ConflictMonitor)
 * writeguard.lock.wait           timer    backend, outcome=acquired|timeout
 * writeguard.lock.held           timer    backend
 * writeguard.lock.leases.lost    counter  backend
 * writeguard.transaction.retries counter  label
 * </pre>
 * Tags are low-cardinality only: document ids and lock keys never become tags (the
 * {@link ConflictMonitor}'s hot-key list is where keys go).
 *
 * <p>Thread-safe; meters are created once per tag set and cached.
 */
public final class WriteGuardMetrics implements WriteGuardListener {
  private final MeterRegistry registry;
  private final String prefix;
  private final ConflictMonitor monitor;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final Map<OperationScope, Boolean> gauges = new ConcurrentHashMap<>();

  private WriteGuardMetrics(Builder b) {
    this.registry = b.registry;
    this.prefix = b.prefix;
    this.monitor = b.monitor;
  }

  public static Builder builder(MeterRegistry registry) {
    return new Builder(registry);
  }

  private Counter counter(String name, String... tags) {
    String id = name + String.join("\u0000", tags);
    return counters.computeIfAbsent(id, k -> Counter.builder(prefix + "." + name).tags(tags).register(registry));
  }

  private Timer timer(String name, String... tags) {
    String id = name + String.join("\u0000", tags);
    return timers.computeIfAbsent(id, k -> Timer.builder(prefix + "." + name).tags(tags).register(registry));
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

    public WriteGuardMetrics build() {
      return new WriteGuardMetrics(this);
    }
  }
}
