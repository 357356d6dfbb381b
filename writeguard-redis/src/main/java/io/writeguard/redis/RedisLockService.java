package io.writeguard.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.internal.Checks;
import io.writeguard.internal.LeaseChecks;
import io.writeguard.internal.LockArguments;
import io.writeguard.lock.LeaseLockEngine;
import io.writeguard.lock.LeaseStore;
import io.writeguard.lock.LeaseTerms;
import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.function.UnaryOperator;

/**
 * A lease lock in Redis, for several processes or machines, with fencing tokens: the shared
 * lease-lock engine ({@link LeaseLockEngine}: per-key local queue, hand-off between threads of
 * this process, watchdog, lost-lease signalling) over a {@link RedisLeaseStore} (scripts in
 * {@code src/main/resources/io/writeguard/redis/*.lua}).
 *
 * <ol>
 *   <li>Callers in this process queue per key (FIFO); only the head talks to Redis.
 *   <li>The head runs {@code acquire.lua}: if {@code <prefix><key>} has no holder, it records
 *       {@code owner:attempt} and mints a block of {@code handoffBatch} tokens, with
 *       {@code PX lease}. One round trip. If the key is held it returns the holder's remaining
 *       lease. A take resent by the client after a reconnect recognises its own attempt.
 *   <li>A busy head subscribes to the key's release channel, tries once more, then sleeps until
 *       a release message, the holder's remaining lease, {@code fallbackRecheck} or its
 *       deadline, and tries again.
 *   <li>A watchdog renews the lease every {@code renewInterval} ({@code renew.lua}). A failed
 *       renewal marks the handle lost.
 *   <li>{@code release.lua} frees the key only if it still holds this holder's attempt, then
 *       publishes on the key's channel; {@code close()} does not wait for the answer.
 *   <li><b>Hand-off</b> (default {@code handoffBatch} 32): a holder that releases while other
 *       callers of this process wait for the key keeps the lease for the next one, who gets the
 *       next token of the block without a round trip, up to {@code handoffBatch} holders or
 *       {@code handoffSlice}, and only while half the lease is left.
 * </ol>
 *
 * <p>Fencing tokens are per key: the server's clock in milliseconds times 2048 plus a count,
 * never more than 2048 per key and millisecond, so they keep rising across a Redis restart
 * without persistence at any acquire rate, as long as the server clock does not step back; for
 * the same reason they keep rising across a Sentinel or Cluster failover even when the promoted
 * replica lacks the last writes, as long as its clock is not behind the old master's by more
 * than the failover took. Mutual exclusion is not kept across such a failover (a lock the
 * replica never received is free there): the fence at MongoDB is what protects the data (see
 * docs/redis-lock.md).
 *
 * <p>Connects to one server or through Sentinel ({@code uri}, {@code client}) or to Redis
 * Cluster ({@code clusterUris}, {@code clusterClient}). Lock keys are hash-tagged,
 * {@code <prefix>{<key>}}, and each script touches that one key, so it runs on the master of
 * the key's slot.
 *
 * <p>"Busy until the timeout" is a {@link LockTimeoutException}; a Redis error, a connection
 * failure or a command that gets no answer within {@code commandTimeout} is a
 * {@link LockBackendException}. Thread-safe; build with {@link #builder()}.
 */
public final class RedisLockService implements LockService {

  /** The backend name in events and messages. */
  public static final String BACKEND = "redis";
  /** Largest {@code handoffBatch}: a key mints at most 2048 tokens per server millisecond. */
  public static final int MAX_HANDOFF_BATCH = 1024;

  private final AbstractRedisClient client;
  private final boolean ownsClient;
  private final Duration commandTimeout;
  private final LockConnections connections;
  private final ReleaseWaker waker;
  private final RedisLeaseStore store;
  private final LeaseLockEngine engine;
  private final String owner;
  private final LeaseTerms terms;

  /** The validated configuration, immutable. */
  private record Settings(
      String keyPrefix, Duration lease, Duration renewInterval, String owner,
      WriteGuardListener listener, Ticker ticker, Duration fallbackRecheck, int maxKeyLength,
      Duration commandTimeout, int handoffBatch, Duration handoffSlice) {}

  private RedisLockService(Settings settings, AbstractRedisClient client, boolean ownsClient,
      UnaryOperator<LeaseStore> storeView) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.commandTimeout = settings.commandTimeout();
    this.owner = settings.owner();
    this.terms = new LeaseTerms(settings.lease(), Optional.ofNullable(settings.renewInterval()),
        settings.handoffBatch(), settings.handoffSlice(), settings.maxKeyLength());
    LockConnections opened = null;
    ReleaseWaker releaseWaker = null;
    LockScripts scripts;
    try {
      opened = LockConnections.open(client);
      releaseWaker = new ReleaseWaker(opened.pubSub(), settings.ticker());
      scripts = new LockScripts(opened.scripting());
      scripts.load();
    } catch (InterruptedException e) {
      closeQuietly(opened, releaseWaker);
      throw new WriteGuardInterruptedException("connecting the redis lock service", e);
    } catch (RuntimeException | ExecutionException e) {
      closeQuietly(opened, releaseWaker);
      throw new LockBackendException("redis lock service cannot reach Redis: "
          + LockScripts.unwrap(e), LockScripts.unwrap(e));
    }
    this.connections = opened;
    this.waker = releaseWaker;
    this.store = new RedisLeaseStore(scripts, waker, settings.keyPrefix(), settings.lease(),
        settings.commandTimeout(), settings.fallbackRecheck());
    this.engine = new LeaseLockEngine(new LeaseLockEngine.Settings(BACKEND, settings.owner(), settings.lease(),
        settings.renewInterval(), settings.handoffBatch(), settings.handoffSlice(), settings.maxKeyLength(),
        settings.ticker(), Sleeper.system(), settings.listener()), storeView.apply(store));
    engine.every(ReleaseWaker.IDLE_UNSUBSCRIBE, waker::unsubscribeIdle);
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public LockHandle acquire(String key, Duration waitTimeout) {
    return engine.acquire(key, waitTimeout);
  }

  @Override
  public Optional<LockHandle> tryAcquire(String key) {
    return engine.tryAcquire(key);
  }

  @Override
  public String backend() {
    return BACKEND;
  }

  /** This service's owner id, as stored (before {@code :attempt}) in the locks it holds. */
  public String owner() {
    return owner;
  }

  /** The lease settings this service runs with, defaults filled in. */
  public LeaseTerms leaseTerms() {
    return terms;
  }

  /**
   * Stops watchdogs, lets releases already sent finish, and closes the connections (and the
   * client, if this service made it). Held handles stay valid until their lease runs out.
   */
  @Override
  public void close() {
    engine.close();
    try {
      store.awaitReleasesSent(commandTimeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closing anyway; unfinished releases expire with their leases
    }
    closeQuietly(connections, waker);
    if (ownsClient) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static void closeQuietly(LockConnections opened, ReleaseWaker releaseWaker) {
    if (releaseWaker != null) {
      releaseWaker.close();
    } else if (opened != null) {
      opened.pubSub().close();
    }
    if (opened != null) {
      opened.commands().close();
    }
  }

  /** The engine, for tests of its bounds. */
  LeaseLockEngine engine() {
    return engine;
  }

  /** Callers of this process queued for {@code key} (the holder not counted); for tests. */
  int localWaiters(String key) {
    return engine.waiting(key);
  }

  /** Release channels this process is subscribed to now. */
  int subscriptions() {
    return waker.subscriptions();
  }

  /**
   * Builds a {@link RedisLockService}. Not thread-safe; {@link #build()} validates and copies
   * the settings, then connects (two connections: commands and pub/sub) and loads the scripts.
   */
  public static final class Builder {
    private RedisClient client;
    private String uri;
    private RedisClusterClient clusterClient;
    private List<String> clusterUris;
    private String keyPrefix = "wg:lock:";
    private Duration lease = LeaseChecks.DEFAULT_LEASE;
    private Duration renewInterval;
    private boolean watchdog = true;
    private String owner;
    private WriteGuardListener listener = WriteGuardListener.NOOP;
    private Ticker ticker = Ticker.system();
    private Duration fallbackRecheck = Duration.ofSeconds(1);
    private int maxKeyLength = 1024;
    private Duration commandTimeout = Duration.ofSeconds(5);
    private int handoffBatch = LeaseChecks.DEFAULT_HANDOFF_BATCH;
    private UnaryOperator<LeaseStore> storeView = UnaryOperator.identity();
    private Duration handoffSlice = LeaseChecks.DEFAULT_HANDOFF_SLICE;
    private boolean handoffSliceSet;

    private Builder() {}

    /** Uses an existing client; the service opens its own connections and never shuts it down. */
    public Builder client(RedisClient client) {
      this.client = Objects.requireNonNull(client, "client must not be null");
      return this;
    }

    /**
     * Connects to {@code redis://host:port}, or through Sentinel with
     * {@code redis-sentinel://host:26379,host2:26379/0#masterName} (any Lettuce URI); the service
     * owns that client. After a Sentinel failover it reconnects to the master Sentinel names.
     */
    public Builder uri(String uri) {
      this.uri = uri;
      return this;
    }

    /**
     * Uses an existing Redis Cluster client; the service opens its own connections and never
     * shuts it down. Its topology refresh options decide how soon a failover is noticed.
     */
    public Builder clusterClient(RedisClusterClient clusterClient) {
      this.clusterClient = Objects.requireNonNull(clusterClient, "clusterClient must not be null");
      return this;
    }

    /**
     * Connects to Redis Cluster through these seed nodes ({@code redis://host:port} each; one
     * reachable node is enough, the rest of the cluster is discovered); the service owns that
     * client and refreshes the topology on {@code MOVED} and reconnects (at most once a second)
     * and every 10 s, so a failover is followed within seconds.
     */
    public Builder clusterUris(String... clusterUris) {
      this.clusterUris = clusterUris == null ? null : new ArrayList<>(java.util.Arrays.asList(clusterUris));
      return this;
    }

    /** Prefix of lock keys and release channels. Default {@code wg:lock:}. */
    public Builder keyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
      return this;
    }

    /** How long a lock lives without renewal, so a crashed holder never blocks. Default 30 s. */
    public Builder lease(Duration lease) {
      this.lease = LeaseChecks.lease(lease);
      return this;
    }

    /**
     * How often the watchdog renews a held lease; must be shorter than the lease. Default: a
     * third of the lease (10 s with the default lease).
     */
    public Builder renewInterval(Duration renewInterval) {
      this.renewInterval = LeaseChecks.renewInterval(renewInterval);
      this.watchdog = true;
      return this;
    }

    /** No renewal: a lock lives at most one lease, and work must finish within it. */
    public Builder withoutWatchdog() {
      this.watchdog = false;
      return this;
    }

    /** Identifies this process in stored values. Default: pid@host plus a random suffix. */
    public Builder owner(String owner) {
      this.owner = LeaseChecks.owner(owner);
      return this;
    }

    public Builder listener(WriteGuardListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener must not be null");
      return this;
    }

    /** Clock for deadlines and lease accounting. */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
      return this;
    }

    /**
     * Longest a waiter sleeps without re-checking, in case a release message was lost (pub/sub
     * is at-most-once). Default 1 s.
     */
    public Builder fallbackRecheck(Duration fallbackRecheck) {
      this.fallbackRecheck = fallbackRecheck;
      return this;
    }

    /** Longest accepted key, in characters. Default 1024. */
    public Builder maxKeyLength(int maxKeyLength) {
      this.maxKeyLength = LeaseChecks.maxKeyLength(maxKeyLength);
      return this;
    }

    /** How long one Redis command may take before it counts as a backend failure. Default 5 s. */
    public Builder commandTimeout(Duration commandTimeout) {
      this.commandTimeout = commandTimeout;
      return this;
    }

    /**
     * How many holders of this process may share one Redis lease, passing it on without a round
     * trip while others of this process wait for the key (each still gets its own, higher
     * fencing token: an acquire reserves a block of this many), 1 to {@value RedisLockService#MAX_HANDOFF_BATCH}.
     * Default 32, as for the MongoDB lease lock: 64 threads contending for one key run nearly as
     * fast as on an in-process lock; other processes wait at most {@code handoffSlice} longer.
     * 1: every holder takes the lock at Redis.
     */
    public Builder handoffBatch(int handoffBatch) {
      this.handoffBatch = LeaseChecks.handoffBatch(handoffBatch, MAX_HANDOFF_BATCH,
          "a key mints at most 2048 tokens per server millisecond");
      return this;
    }

    /**
     * A turn: the longest one lease is passed on between local holders (and between one
     * group-commit batch of this process and the next, {@link LockHandle#closeForSuccessor()})
     * before it is released, counted from its take. Default 20 ms. Positive and, when set, at
     * most half the lease.
     */
    public Builder handoffSlice(Duration handoffSlice) {
      this.handoffSlice = LeaseChecks.handoffSlice(handoffSlice);
      this.handoffSliceSet = true;
      return this;
    }

    /** For tests: wraps the store the engine talks to (e.g. to inject faults). */
    Builder storeView(UnaryOperator<LeaseStore> storeView) {
      this.storeView = Objects.requireNonNull(storeView, "storeView");
      return this;
    }

    /**
     * Validates, connects and loads the scripts.
     *
     * @throws IllegalArgumentException naming the bad setting and value
     * @throws LockBackendException if Redis cannot be reached
     */
    public RedisLockService build() {
      RedisClientSource source = RedisClientSource.of(client, uri, clusterClient, clusterUris);
      Checks.notBlank("keyPrefix", keyPrefix);
      if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
        throw new IllegalArgumentException("keyPrefix must not contain '{' or '}' (lock keys are"
            + " hash-tagged as prefix{key}, one cluster slot per key), was " + Checks.quote(keyPrefix));
      }
      Duration renew = LeaseChecks.watchdogInterval(lease, renewInterval, watchdog);
      String ownerId = owner == null ? LeaseChecks.defaultOwner() : owner;
      Checks.positive("fallbackRecheck", fallbackRecheck);
      Checks.positive("commandTimeout", commandTimeout);
      LockArguments.checkTurn(handoffSlice, handoffSliceSet, lease);
      Settings settings = new Settings(keyPrefix, lease, renew, ownerId, listener, ticker,
          fallbackRecheck, maxKeyLength, commandTimeout, handoffBatch, handoffSlice);
      if (source.given() != null) {
        return new RedisLockService(settings, source.given(), false, storeView);
      }
      AbstractRedisClient own = source.open();
      try {
        return new RedisLockService(settings, own, true, storeView);
      } catch (RuntimeException e) {
        own.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        throw e;
      }
    }

  }
}
