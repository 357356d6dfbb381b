package io.writeguard.spring;

import io.writeguard.internal.Checks;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * The {@code writeguard.*} settings. Every setter checks its value and names the property in
 * its message, so a bad value stops the application at startup with Boot's "Failed to bind
 * properties under 'writeguard....'" report (property, value, origin, reason). Checks that
 * relate two values (a renew interval shorter than its lease, a maximum backoff not below the
 * base) run once binding is done: this class is its own {@link Validator}, which Boot's binder
 * calls, so a failure is a binding failure too, reported by Boot's failure analyzer as
 * "Binding to target ... failed" with the property, its value and the reason.
 *
 * <p>Defaults are the library's own. Mutable while Boot binds it, then read only: not
 * thread-safe to change after startup.
 */
@ConfigurationProperties(prefix = "writeguard")
public class WriteGuardProperties implements Validator {
  private final Updater updater = new Updater();
  private final MongoLock mongoLock = new MongoLock();
  private final RedisLock redisLock = new RedisLock();
  private final Lock lock = new Lock();
  private final Monitor monitor = new Monitor();
  private final Metrics metrics = new Metrics();
  private final Health health = new Health();
  private final Reactive reactive = new Reactive();

  /** Optimistic updaters made by {@link WriteGuardUpdaters}. */
  public Updater getUpdater() {
    return updater;
  }

  /** The MongoDB lease lock. */
  public MongoLock getMongoLock() {
    return mongoLock;
  }

  /** The Redis lease lock (needs writeguard-redis and a Lettuce connection factory). */
  public RedisLock getRedisLock() {
    return redisLock;
  }

  /** Defaults of {@link LeaseLocked}. */
  public Lock getLock() {
    return lock;
  }

  /** The conflict monitor. */
  public Monitor getMonitor() {
    return monitor;
  }

  /** The Micrometer binding. */
  public Metrics getMetrics() {
    return metrics;
  }

  /** The health check. */
  public Health getHealth() {
    return health;
  }

  /** The reactive updaters' executor (needs writeguard-reactor and Reactor). */
  public Reactive getReactive() {
    return reactive;
  }

  @Override
  public boolean supports(Class<?> type) {
    return WriteGuardProperties.class.isAssignableFrom(type);
  }

  /** The checks that relate two values; each failure names both properties. */
  @Override
  public void validate(Object target, Errors errors) {
    WriteGuardProperties properties = (WriteGuardProperties) target;
    properties.mongoLock.checkRenewal(errors, "mongo-lock");
    properties.redisLock.checkRenewal(errors, "redis-lock");
    Updater updater = properties.updater;
    if (updater.maxBackoff.compareTo(updater.baseBackoff) < 0) {
      errors.rejectValue("updater.max-backoff", "writeguard.updater.max-backoff",
          "writeguard.updater.max-backoff must be >= writeguard.updater.base-backoff ("
              + updater.baseBackoff + "), was " + updater.maxBackoff);
    }
  }

  /** Retry settings of the optimistic updaters. */
  public static class Updater {
    /** Attempts in all, the first included; at least 1. */
    private int maxAttempts = 10;
    /** Time budget of one update call, from its start. */
    private Duration deadline = Duration.ofSeconds(5);
    /** First jitter window of the backoff between attempts. */
    private Duration baseBackoff = Duration.ofMillis(5);
    /** Largest jitter window of the backoff between attempts. */
    private Duration maxBackoff = Duration.ofMillis(500);
    /**
     * Version field of collections named by name, and of entities without a Spring Data
     * {@code @Version} property.
     */
    private String versionField = "version";
    /** Strategy name the updaters report events and meters under. */
    private String strategyName = "optimistic";

    public int getMaxAttempts() {
      return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
      this.maxAttempts = Checks.atLeast("writeguard.updater.max-attempts", maxAttempts, 1);
    }

    public Duration getDeadline() {
      return deadline;
    }

    public void setDeadline(Duration deadline) {
      this.deadline = Checks.positive("writeguard.updater.deadline", deadline);
    }

    public Duration getBaseBackoff() {
      return baseBackoff;
    }

    public void setBaseBackoff(Duration baseBackoff) {
      this.baseBackoff = Checks.notNegative("writeguard.updater.base-backoff", baseBackoff);
    }

    public Duration getMaxBackoff() {
      return maxBackoff;
    }

    public void setMaxBackoff(Duration maxBackoff) {
      this.maxBackoff = Checks.notNegative("writeguard.updater.max-backoff", maxBackoff);
    }

    public String getVersionField() {
      return versionField;
    }

    public void setVersionField(String versionField) {
      this.versionField = Checks.notBlank("writeguard.updater.version-field", versionField);
    }

    public String getStrategyName() {
      return strategyName;
    }

    public void setStrategyName(String strategyName) {
      this.strategyName = Checks.notBlank("writeguard.updater.strategy-name", strategyName);
    }
  }

  /** Settings shared by both lease locks. */
  abstract static class Lease {
    /** Whether to create this lock service. */
    private boolean enabled = true;
    /** How long a holder keeps the lock without renewing it. */
    private Duration lease = Duration.ofSeconds(30);
    /** How often the watchdog renews a held lease; shorter than the lease. */
    private Duration renewInterval = Duration.ofSeconds(10);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getLease() {
      return lease;
    }

    public void setLease(Duration lease) {
      this.lease = Checks.positive(prefix() + ".lease", lease);
    }

    public Duration getRenewInterval() {
      return renewInterval;
    }

    public void setRenewInterval(Duration renewInterval) {
      this.renewInterval = Checks.positive(prefix() + ".renew-interval", renewInterval);
    }

    abstract String prefix();

    void checkRenewal(Errors errors, String path) {
      String prefix = prefix();
      if (renewInterval.compareTo(lease) >= 0) {
        errors.rejectValue(path + ".renew-interval", prefix + ".renew-interval",
            prefix + ".renew-interval must be shorter than " + prefix + ".lease (" + lease
                + "), was " + renewInterval);
      }
    }
  }

  /** The MongoDB lease lock's settings. */
  public static class MongoLock extends Lease {
    /** Collection of the lock documents, in the MongoTemplate's database. */
    private String collection = "writeguard_locks";

    public String getCollection() {
      return collection;
    }

    public void setCollection(String collection) {
      this.collection = Checks.notBlank("writeguard.mongo-lock.collection", collection);
    }

    @Override
    String prefix() {
      return "writeguard.mongo-lock";
    }
  }

  /** The Redis lease lock's settings. */
  public static class RedisLock extends Lease {
    /** Prefix of lock keys and release channels; the bare prefix holds the token counter. */
    private String keyPrefix = "wg:lock:";
    /** How long one Redis command may take before it counts as a backend failure. */
    private Duration commandTimeout = Duration.ofSeconds(5);

    public String getKeyPrefix() {
      return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
      this.keyPrefix = Checks.notBlank("writeguard.redis-lock.key-prefix", keyPrefix);
    }

    public Duration getCommandTimeout() {
      return commandTimeout;
    }

    public void setCommandTimeout(Duration commandTimeout) {
      this.commandTimeout = Checks.positive("writeguard.redis-lock.command-timeout", commandTimeout);
    }

    @Override
    String prefix() {
      return "writeguard.redis-lock";
    }
  }

  /** What {@link LeaseLocked} uses when the annotation does not say. */
  public static class Lock {
    /**
     * Lock service of @LeaseLocked methods that name none: a backend ({@code mongo},
     * {@code redis}, {@code local}) or the name of a {@code LockService} bean.
     */
    private String defaultService = "mongo";
    /** How long a @LeaseLocked method waits for its lock when the annotation does not say. */
    private Duration defaultWait = Duration.ofSeconds(10);
    /**
     * Order of the @LeaseLocked advisor; must be lower than the transaction advisor's
     * (@EnableTransactionManagement's order, lowest precedence by default), so that the lock
     * is taken before a transaction begins and released after it commits.
     */
    private int advisorOrder = LeaseLockedAdvisor.DEFAULT_ORDER;
    /**
     * The budget of one @LeaseLocked call, from the start of its lock wait to its release:
     * the wait is cut to it, and every MongoDB operation and Redis command of the call (the
     * method's own updates, locks and counters included) gets the time left. Unset: each part
     * keeps its own bound (the wait, each updater's retry deadline).
     */
    private Duration callDeadline;

    public Duration getCallDeadline() {
      return callDeadline;
    }

    public void setCallDeadline(Duration callDeadline) {
      this.callDeadline = callDeadline == null ? null
          : Checks.positive("writeguard.lock.call-deadline", callDeadline);
    }

    public String getDefaultService() {
      return defaultService;
    }

    public void setDefaultService(String defaultService) {
      this.defaultService = Checks.notBlank("writeguard.lock.default-service", defaultService);
    }

    public Duration getDefaultWait() {
      return defaultWait;
    }

    public void setDefaultWait(Duration defaultWait) {
      this.defaultWait = Checks.positive("writeguard.lock.default-wait", defaultWait);
    }

    public int getAdvisorOrder() {
      return advisorOrder;
    }

    /** Read when the advisor is made, from the environment; here for the metadata. */
    public void setAdvisorOrder(int advisorOrder) {
      this.advisorOrder = advisorOrder;
    }
  }

  /** The conflict monitor's settings. */
  public static class Monitor {
    /** Conflict ratio (0..1) above which a collection is in a retry storm. */
    private double threshold = 0.10;
    /** Sliding window the conflict ratio is computed over. */
    private Duration window = Duration.ofSeconds(10);

    public double getThreshold() {
      return threshold;
    }

    public void setThreshold(double threshold) {
      this.threshold = Checks.between("writeguard.monitor.threshold", threshold, 0.0, 1.0);
    }

    public Duration getWindow() {
      return window;
    }

    public void setWindow(Duration window) {
      this.window = Checks.positive("writeguard.monitor.window", window);
    }
  }

  /** The Micrometer binding's settings. */
  public static class Metrics {
    /** Whether to publish WriteGuard's events as meters when a MeterRegistry exists. */
    private boolean enabled = true;
    /** Prefix of the meter names. */
    private String prefix = "writeguard";
    /** Whether the timers publish a percentile histogram (for p99 across instances). */
    private boolean percentileHistograms = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getPrefix() {
      return prefix;
    }

    public void setPrefix(String prefix) {
      this.prefix = Checks.notBlank("writeguard.metrics.prefix", prefix);
    }

    public boolean isPercentileHistograms() {
      return percentileHistograms;
    }

    public void setPercentileHistograms(boolean percentileHistograms) {
      this.percentileHistograms = percentileHistograms;
    }
  }

  /** The health check's settings. */
  public static class Health {
    /**
     * How long the health check waits for the lock stores' answers; a store silent longer is
     * reported DOWN.
     */
    private Duration timeout = Duration.ofSeconds(2);

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = Checks.positive("writeguard.health.timeout", timeout);
    }
  }

  /**
   * The executor the reactive updaters and asynchronous {@link LeaseLocked} methods run
   * WriteGuard's blocking calls on.
   */
  public static class Reactive {
    /** Threads running blocking calls; also the most callers one group-commit batch holds. */
    private int threads = 16;
    /** Calls that may wait when every thread is busy; beyond, a call fails at once. */
    private int queueCapacity = 1024;
    /** Threads that wait for the locks of asynchronous {@link LeaseLocked} methods. */
    private int lockWaiters = 16;
    /** The threads' name prefix. */
    private String threadNamePrefix = "writeguard-reactive";

    public int getThreads() {
      return threads;
    }

    public void setThreads(int threads) {
      this.threads = Checks.atLeast("writeguard.reactive.threads", threads, 1);
    }

    public int getQueueCapacity() {
      return queueCapacity;
    }

    public void setQueueCapacity(int queueCapacity) {
      this.queueCapacity = Checks.atLeast("writeguard.reactive.queue-capacity", queueCapacity, 0);
    }

    public int getLockWaiters() {
      return lockWaiters;
    }

    public void setLockWaiters(int lockWaiters) {
      this.lockWaiters = Checks.atLeast("writeguard.reactive.lock-waiters", lockWaiters, 1);
    }

    public String getThreadNamePrefix() {
      return threadNamePrefix;
    }

    public void setThreadNamePrefix(String threadNamePrefix) {
      this.threadNamePrefix = Checks.notBlank("writeguard.reactive.thread-name-prefix",
          threadNamePrefix);
    }
  }
}
