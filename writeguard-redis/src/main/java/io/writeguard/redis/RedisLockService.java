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
import java.util.concurrent.ExecutionException;
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
 *   <li>The head runs {@code acquire.lua}: if {@code <prefix><key>} is absent it increments the
 *       token counter {@code <prefix>} (the bare prefix: no lock key is empty, so it never
 *       collides; created at the server's clock in microseconds) and sets the key to {@code "<owner>:<token>"} with {@code PX lease}, returning
 *       the token. One round trip. If the key is held it returns the holder's remaining lease.
 *   <li>A busy head subscribes to the key's release channel ({@code <prefix><key>} as a pub/sub
 *       channel), tries once more (a release may have come before the subscription), then
 *       sleeps until a release message, the holder's remaining lease, the fallback re-check
 *       interval or its deadline, whichever is first, and tries again. No polling: expiry sends
 *       no message, which is what the remaining-lease wake-up and the fallback are for.
 *   <li>While held, a watchdog renews the lease every {@code renewInterval} with
 *       {@code renew.lua} (compare value, PEXPIRE). A failed renewal marks the handle lost.
 *   <li>{@code release.lua} deletes the key only if it still holds this holder's value, then
 *       publishes on the key's channel. One round trip, not waited for by {@code close()}.
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

  /** The validated configuration, immutable. */
  private record Settings(
      String keyPrefix, Duration lease, Duration renewInterval, String owner,
      WriteGuardListener listener, Ticker ticker, Duration fallbackRecheck, int maxKeyLength,
      Duration commandTimeout) {}

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
      listener.onLockWait(BACKEND, key, elapsed(start), false);
      throw new LockTimeoutException(BACKEND, key, waitTimeout, e.waiters());
    }
    try {
      RedisLockHandle handle = acquireAtRedis(key, turn, deadline, waitTimeout, start);
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
      long sentAt = settings.ticker().nanoTime();
      long result = attempt(key, 1, sentAt);
      if (result > 0) {
        return Optional.of(started(new RedisLockHandle(this, key, result, turn, sentAt)));
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
          return started(new RedisLockHandle(this, key, result, turn, sentAt));
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
    CompletableFuture<Long> reply = scripts.acquire(
        lockKey(key), settings.keyPrefix(), settings.owner(), settings.lease().toMillis());
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

  private RedisLockHandle started(RedisLockHandle handle) {
    handle.start();
    return handle;
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
      Settings settings = new Settings(keyPrefix, lease, renew, ownerId, listener, ticker,
          fallbackRecheck, maxKeyLength, commandTimeout);
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
