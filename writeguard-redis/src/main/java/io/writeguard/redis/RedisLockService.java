package io.writeguard.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.writeguard.Ticker;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.internal.Checks;
import io.writeguard.internal.LockArguments;
import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.monitor.WriteGuardListener;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A lease lock in Redis, for several processes or machines, with fencing tokens.
 *
 * <p>Algorithm (scripts in {@code src/main/resources/io/writeguard/redis/*.lua}):
 * <ol>
 *   <li>Callers in this process queue per key (FIFO, in a {@link LocalLockService}); only the
 *       one whose turn it is talks to Redis, so many local waiters make one Redis waiter.
 *   <li>The head runs {@code acquire.lua}: if {@code <prefix><key>} is absent it raises the
 *       token counter {@code <prefix>} by {@code handoffBatch} (the bare prefix: no lock key is
 *       empty, so it never collides; created at the server's clock in microseconds) and sets the
 *       key to {@code "<owner>:<first>"} with {@code PX lease}, returning {@code first}, the
 *       first token of the block. One round trip. If the key is held it returns the holder's
 *       remaining lease.
 *   <li>A busy head subscribes to the key's release channel ({@code <prefix><key>} as a pub/sub
 *       channel), tries once more (a release may have come before the subscription), then
 *       sleeps until a release message, the holder's remaining lease, the fallback re-check
 *       interval or its deadline, whichever is first, and tries again. No polling: expiry sends
 *       no message, which is what the remaining-lease wake-up and the fallback are for.
 *   <li>While held, a watchdog renews the lease every {@code renewInterval} with
 *       {@code renew.lua} (compare value, PEXPIRE). A failed renewal marks the handle lost.
 *   <li>{@code release.lua} deletes the key only if it still holds this holder's value, then
 *       publishes on the key's channel. One round trip, not waited for by {@code close()}.
 *   <li><b>Hand-off</b> (with {@code handoffBatch > 1}): a holder that releases while other
 *       callers of this process are queued for the key keeps the Redis lease and the next caller
 *       gets the next token of the block, without a round trip, up to {@code handoffBatch}
 *       holders or {@code handoffSlice}, and only while at least half the lease is left. Then
 *       the lease is released at Redis, so other processes get their turn.
 * </ol>
 *
 * <p>Fencing tokens come from {@code INCR} on one counter for all keys. A missing counter (first
 * use, or Redis lost its data) starts at the Redis server's clock in microseconds, so tokens
 * stay above those handed out before. But a failover to a replica that had not received the
 * last {@code INCR}s can hand out a lower token; mint tokens from MongoDB when that matters
 * (see docs/redis-lock.md). The script touches two keys, so Redis Cluster is not supported.
 *
 * <p>"Busy until the timeout" is a {@link LockTimeoutException}; a Redis error, a connection
 * failure or a command that gets no answer within {@code commandTimeout} is a
 * {@link LockBackendException}. Thread-safe; build with {@link #builder()}.
 */
public final class RedisLockService implements LockService {

  /** The backend name in events and messages. */
  public static final String BACKEND = "redis";

  private final Settings settings;
  private final RedisClient client;
  private final boolean ownsClient;
  private final StatefulRedisConnection<String, String> connection;
  private final LockScripts scripts;
  private final ReleaseWaker waker;
  private final LocalLockService localTurns;
  private final ScheduledThreadPoolExecutor scheduler;
  private final WriteGuardListener listener;
  /** Leases kept for the next local holder of their key (at most one per key). */
  private final ConcurrentHashMap<String, RedisLease> leases = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /** The validated configuration, immutable. */
  private record Settings(
      String keyPrefix, Duration lease, Duration renewInterval, String owner,
      WriteGuardListener listener, Ticker ticker, Duration fallbackRecheck, int maxKeyLength,
      Duration commandTimeout, int handoffBatch, Duration handoffSlice) {}

  private RedisLockService(Settings settings, RedisClient client, boolean ownsClient) {
    this.settings = settings;
    this.client = client;
    this.ownsClient = ownsClient;
    this.listener = WriteGuardListener.safe(settings.listener());
    this.localTurns = LocalLockService.builder()
        .ticker(settings.ticker()).maxKeyLength(settings.maxKeyLength()).build();
    StatefulRedisConnection<String, String> commands = null;
    ReleaseWaker releaseWaker = null;
    try {
      commands = client.connect(StringCodec.UTF8);
      releaseWaker = new ReleaseWaker(client.connectPubSub(StringCodec.UTF8), settings.ticker());
      this.scripts = new LockScripts(commands.async());
      scripts.load();
    } catch (InterruptedException e) {
      closeQuietly(commands, releaseWaker);
      throw new WriteGuardInterruptedException("connecting the redis lock service", e);
    } catch (RuntimeException | ExecutionException e) {
      closeQuietly(commands, releaseWaker);
      throw new LockBackendException("redis lock service cannot reach Redis: "
          + LockScripts.unwrap(e), LockScripts.unwrap(e));
    }
    this.connection = commands;
    this.waker = releaseWaker;
    this.scheduler = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "writeguard-redis-lock-watchdog");
      t.setDaemon(true);
      return t;
    });
    scheduler.setRemoveOnCancelPolicy(true);
    long sweep = ReleaseWaker.IDLE_UNSUBSCRIBE.toNanos();
    scheduler.scheduleWithFixedDelay(waker::unsubscribeIdle, sweep, sweep, TimeUnit.NANOSECONDS);
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public LockHandle acquire(String key, Duration waitTimeout) {
    LockArguments.checkKey("key", key, settings.maxKeyLength());
    long timeoutNanos = LockArguments.checkTimeoutNanos(waitTimeout);
    long start = settings.ticker().nanoTime();
    // Compared by difference, so a deadline that wraps past Long.MAX_VALUE still works.
    long deadline = start + timeoutNanos;
    LockHandle turn;
    try {
      turn = localTurns.acquire(key, waitTimeout);
    } catch (LockTimeoutException e) {
      afterLeavingQueue(key);
      listener.onLockWait(BACKEND, key, elapsed(start), false);
      throw new LockTimeoutException(BACKEND, key, waitTimeout, e.waiters());
    } catch (WriteGuardInterruptedException e) {
      afterLeavingQueue(key);
      throw e;
    }
    try {
      RedisLockHandle handle = keptLease(key, turn);
      if (handle == null) {
        handle = acquireAtRedis(key, turn, deadline, waitTimeout, start);
      }
      listener.onLockWait(BACKEND, key, elapsed(start), true);
      return handle;
    } catch (RuntimeException | Error e) {
      turn.close();
      throw e;
    }
  }

  @Override
  public Optional<LockHandle> tryAcquire(String key) {
    LockArguments.checkKey("key", key, settings.maxKeyLength());
    Optional<LockHandle> localTurn = localTurns.tryAcquire(key);
    if (localTurn.isEmpty()) {
      return Optional.empty();
    }
    LockHandle turn = localTurn.get();
    try {
      RedisLockHandle kept = keptLease(key, turn);
      if (kept != null) {
        return Optional.of(kept);
      }
      long sentAt = settings.ticker().nanoTime();
      long result = attempt(key, 1, sentAt);
      if (result > 0) {
        return Optional.of(newLease(key, result, turn, sentAt));
      }
      turn.close();
      return Optional.empty();
    } catch (RuntimeException | Error e) {
      turn.close();
      throw e;
    }
  }

  @Override
  public String backend() {
    return BACKEND;
  }

  /**
   * Stops watchdogs, lets releases already sent finish, and closes the connections (and the
   * client, if this service made it). Held handles stay valid until their lease runs out.
   */
  @Override
  public void close() {
    closed = true;
    for (String key : leases.keySet()) {
      releaseParked(key);
    }
    scheduler.shutdownNow();
    try {
      // Redis answers in order: once this PING is answered, every release sent before it ran.
      connection.async().ping().get(settings.commandTimeout().toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      // Closing anyway; unfinished releases expire with their leases.
    }
    closeQuietly(connection, waker);
    if (ownsClient) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  // ---- the wait at Redis ----

  private RedisLockHandle acquireAtRedis(
      String key, LockHandle turn, long deadline, Duration waitTimeout, long start) {
    ReleaseWaker.Registration wake = null;
    try {
      for (int attempt = 1; ; attempt++) {
        if (wake != null) {
          wake.drain(); // only releases after this attempt may wake us
        }
        long sentAt = settings.ticker().nanoTime();
        long result = attempt(key, attempt, start);
        if (result > 0) {
          return newLease(key, result, turn, sentAt);
        }
        if (wake == null) {
          // Subscribe, then try again at once: a release before the subscription sends no wake-up.
          wake = waker.register(channel(key));
          wake.awaitSubscribed(settings.commandTimeout());
          continue;
        }
        long now = settings.ticker().nanoTime();
        if (now - deadline >= 0) {
          throw timedOut(key, waitTimeout, start);
        }
        long holderLeft = result < 0 ? TimeUnit.MILLISECONDS.toNanos(-result) + 1_000_000 : Long.MAX_VALUE;
        wake.await(Math.min(deadline - now, Math.min(holderLeft, settings.fallbackRecheck().toNanos())));
      }
    } catch (InterruptedException e) {
      throw new WriteGuardInterruptedException("waiting for redis lock '" + key + "'", e);
    } finally {
      if (wake != null) {
        wake.close();
      }
    }
  }

  /** Runs acquire.lua once and waits for its answer; a lock taken after we gave up is released. */
  private long attempt(String key, int attempt, long start) {
    CompletableFuture<Long> reply = scripts.acquire(lockKey(key), settings.keyPrefix(),
        settings.owner(), settings.lease().toMillis(), settings.handoffBatch());
    try {
      return reply.get(settings.commandTimeout().toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      releaseIfTakenLater(key, reply);
      throw new WriteGuardInterruptedException("waiting for redis to answer for lock '" + key + "'", e);
    } catch (TimeoutException e) {
      releaseIfTakenLater(key, reply);
      throw backendFailure(key, attempt, start,
          "no answer within commandTimeout " + settings.commandTimeout().toMillis() + "ms", e);
    } catch (ExecutionException e) {
      Throwable cause = LockScripts.unwrap(e);
      throw backendFailure(key, attempt, start, cause.toString(), cause);
    }
  }

  private void releaseIfTakenLater(String key, CompletableFuture<Long> reply) {
    reply.thenAccept(token -> {
      if (token != null && token > 0) {
        scripts.release(lockKey(key), settings.owner() + ":" + token, channel(key));
      }
    });
  }

  /** A lease just taken at Redis, starting at token {@code first}: its first holder. */
  private RedisLockHandle newLease(String key, long first, LockHandle turn, long sentAt) {
    RedisLease lease = new RedisLease(this, key, first, settings.handoffBatch(), sentAt);
    leases.put(key, lease);
    lease.start();
    return handOut(lease, turn);
  }

  private RedisLockHandle handOut(RedisLease lease, LockHandle turn) {
    RedisLockHandle handle = new RedisLockHandle(this, lease, lease.nextToken(), turn,
        settings.ticker().nanoTime());
    lease.current = handle;
    return handle;
  }

  /**
   * The next token of the lease the previous local holder kept for us, or null (then the
   * caller goes to Redis; a kept lease that can no longer be used is released first, and the
   * acquire goes out behind that release on the same connection). Only the holder of the key's
   * local turn calls this.
   */
  private RedisLockHandle keptLease(String key, LockHandle turn) {
    RedisLease lease = leases.get(key);
    if (lease == null) {
      return null;
    }
    if (lease.usable() && lease.hasTokens()
        && lease.leaseLeftNanos() >= settings.lease().toNanos() / 2) {
      return handOut(lease, turn);
    }
    leases.remove(key, lease);
    lease.end();
    return null;
  }

  // ---- releasing ----

  /** Called once per handle, by {@link RedisLockHandle#close()}. */
  void release(RedisLockHandle handle) {
    RedisLease lease = handle.lease;
    String key = lease.key;
    boolean kept = false;
    if (handle.holdsLocal()) {
      if (lease.current == handle) {
        lease.current = null;
      }
      kept = lease.usable() && lease.hasTokens()
          && settings.ticker().nanoTime() - lease.startNanos < settings.handoffSlice().toNanos()
          && lease.leaseLeftNanos() >= settings.lease().toNanos() / 2
          && localTurns.waiting(key) > 0;
      if (!kept) {
        leases.remove(key, lease);
        lease.end(); // sent before the local turn passes on, so the next acquire queues behind it
      }
      handle.releaseLocal();
    } else {
      lease.end(); // lost earlier: free the key if it is still ours (the script compares)
    }
    if (kept && localTurns.waiting(key) == 0) {
      // Guard against the race with a waiter that timed out after we decided to keep the lease.
      releaseParkedLater(key);
    }
    listener.onLockReleased(BACKEND, key, handle.token(),
        Duration.ofNanos(settings.ticker().nanoTime() - handle.acquiredAt()));
  }

  /** If nobody holds the key's local turn, releases a lease kept for a waiter who left. */
  private void releaseParked(String key) {
    if (!leases.containsKey(key)) {
      return;
    }
    Optional<LockHandle> turn = localTurns.tryAcquire(key);
    if (turn.isEmpty()) {
      return; // the holder decides what happens to the lease
    }
    try {
      RedisLease lease = leases.get(key);
      if (lease != null && lease.current == null) {
        leases.remove(key, lease);
        lease.end();
      }
    } finally {
      turn.get().close();
    }
  }

  /** {@link #releaseParked} on the scheduler thread. */
  void releaseParkedLater(String key) {
    if (closed) {
      return;
    }
    try {
      scheduler.execute(() -> releaseParked(key));
    } catch (RejectedExecutionException e) {
      // Closed meanwhile: close() released the parked leases.
    }
  }

  private void afterLeavingQueue(String key) {
    if (leases.containsKey(key)) {
      releaseParkedLater(key);
    }
  }

  private LockTimeoutException timedOut(String key, Duration waitTimeout, long start) {
    listener.onLockWait(BACKEND, key, elapsed(start), false);
    return new LockTimeoutException(BACKEND, key, waitTimeout, localTurns.waiting(key) + 1);
  }

  private LockBackendException backendFailure(String key, int attempt, long start, String what, Throwable cause) {
    return new LockBackendException("redis lock '" + key + "': acquire attempt " + attempt + " failed after "
        + elapsed(start).toMillis() + "ms: " + what, cause);
  }

  private Duration elapsed(long start) {
    return Duration.ofNanos(settings.ticker().nanoTime() - start);
  }

  /** Durations too long for a {@code long} of nanoseconds wait "forever", as in the local lock. */
  private static void closeQuietly(StatefulRedisConnection<String, String> commands, ReleaseWaker releaseWaker) {
    if (releaseWaker != null) {
      releaseWaker.close();
    }
    if (commands != null) {
      commands.close();
    }
  }

  // ---- for handles ----

  String lockKey(String key) {
    return settings.keyPrefix() + key;
  }

  String channel(String key) {
    return settings.keyPrefix() + key;
  }

  String owner() {
    return settings.owner();
  }

  Duration lease() {
    return settings.lease();
  }

  /** Null when there is no watchdog. */
  Duration renewInterval() {
    return settings.renewInterval();
  }

  Ticker ticker() {
    return settings.ticker();
  }

  WriteGuardListener listener() {
    return listener;
  }

  LockScripts scripts() {
    return scripts;
  }

  ScheduledThreadPoolExecutor scheduler() {
    return scheduler;
  }

  /** Callers of this process queued for {@code key} (the holder not counted); for tests. */
  int localWaiters(String key) {
    return localTurns.waiting(key);
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
    private String keyPrefix = "wg:lock:";
    private Duration lease = Duration.ofSeconds(30);
    private Duration renewInterval = Duration.ofSeconds(10);
    private boolean watchdog = true;
    private String owner;
    private WriteGuardListener listener = WriteGuardListener.NOOP;
    private Ticker ticker = Ticker.system();
    private Duration fallbackRecheck = Duration.ofSeconds(1);
    private int maxKeyLength = 1024;
    private Duration commandTimeout = Duration.ofSeconds(5);
    private int handoffBatch = 1;
    private Duration handoffSlice = Duration.ofMillis(200);

    private Builder() {}

    /** Uses an existing client; the service opens its own connections and never shuts it down. */
    public Builder client(RedisClient client) {
      this.client = Objects.requireNonNull(client, "client must not be null");
      return this;
    }

    /** Connects to {@code redis://host:port} (or any Lettuce URI); the service owns that client. */
    public Builder uri(String uri) {
      this.uri = uri;
      return this;
    }

    /** Prefix of lock keys and release channels; the bare prefix holds the token counter. Default {@code wg:lock:}. */
    public Builder keyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
      return this;
    }

    /** How long a lock lives without renewal, so a crashed holder never blocks. Default 30 s. */
    public Builder lease(Duration lease) {
      this.lease = lease;
      return this;
    }

    /** How often the watchdog renews a held lease; must be shorter than the lease. Default 10 s. */
    public Builder renewInterval(Duration renewInterval) {
      this.renewInterval = renewInterval;
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
      this.owner = owner;
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
      this.maxKeyLength = maxKeyLength;
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
     * fencing token: an acquire reserves a block of this many). Default 1: every holder takes
     * the lock at Redis. 32 makes 64 threads contending for one key nearly as fast as an
     * in-process lock; other processes wait at most {@code handoffSlice} longer.
     */
    public Builder handoffBatch(int handoffBatch) {
      this.handoffBatch = handoffBatch;
      return this;
    }

    /** The longest one lease is passed on between local holders before it is released. Default 200 ms. */
    public Builder handoffSlice(Duration handoffSlice) {
      this.handoffSlice = handoffSlice;
      return this;
    }

    /**
     * Validates, connects and loads the scripts.
     *
     * @throws IllegalArgumentException naming the bad setting and value
     * @throws LockBackendException if Redis cannot be reached
     */
    public RedisLockService build() {
      if ((client == null) == (uri == null)) {
        throw new IllegalArgumentException("exactly one of client or uri must be set, was "
            + (client == null ? "neither" : "both"));
      }
      RedisURI redisUri = uri == null ? null : parseUri(uri);
      Checks.notBlank("keyPrefix", keyPrefix);
      Checks.positive("lease", lease);
      if (lease.toMillis() < 1) {
        throw new IllegalArgumentException("lease must be at least 1ms (Redis PX), was " + lease);
      }
      Duration renew = null;
      if (watchdog) {
        renew = Checks.positive("renewInterval", renewInterval);
        if (renew.compareTo(lease) >= 0) {
          throw new IllegalArgumentException("renewInterval must be shorter than lease " + lease
              + ", was " + renew);
        }
      }
      String ownerId = owner == null ? defaultOwner() : Checks.notBlank("owner", owner);
      Checks.positive("fallbackRecheck", fallbackRecheck);
      Checks.atLeast("maxKeyLength", maxKeyLength, 1);
      Checks.positive("commandTimeout", commandTimeout);
      Checks.atLeast("handoffBatch", handoffBatch, 1);
      Checks.positive("handoffSlice", handoffSlice);
      Settings settings = new Settings(keyPrefix, lease, renew, ownerId, listener, ticker,
          fallbackRecheck, maxKeyLength, commandTimeout, handoffBatch, handoffSlice);
      if (client != null) {
        return new RedisLockService(settings, client, false);
      }
      RedisClient own = RedisClient.create(redisUri);
      // Fail fast while disconnected instead of queueing commands: "Redis down" is a failure.
      own.setOptions(ClientOptions.builder()
          .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
          .build());
      try {
        return new RedisLockService(settings, own, true);
      } catch (RuntimeException e) {
        own.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        throw e;
      }
    }

    private static RedisURI parseUri(String uri) {
      try {
        return RedisURI.create(uri);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("uri is not a Redis URI, was " + Checks.quote(uri)
            + ": " + e.getMessage(), e);
      }
    }

    private static String defaultOwner() {
      return ManagementFactory.getRuntimeMXBean().getName() + "/"
          + UUID.randomUUID().toString().substring(0, 8);
    }
  }
}
