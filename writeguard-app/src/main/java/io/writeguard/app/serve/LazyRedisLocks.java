package io.writeguard.app.serve;

import io.lettuce.core.api.StatefulRedisConnection;
import io.writeguard.app.cli.RedisTarget;
import io.writeguard.app.cli.UsageException;
import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.redis.RedisLockService;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis lock of {@code redis-lock}, connected on first use, so a service that never gets a
 * {@code redis-lock} request never needs Redis.
 *
 * <p>With a URI ({@code --redis-uri} / {@code REDIS_URI}) it connects to that server, which
 * every {@code serve} process must share; {@link #connect()} lets the command connect at start
 * and fail fast. Without one, the first use starts an embedded Redis in this process: fine for
 * one process, useless for several (each would lock on its own server), which the log says. A
 * connection that fails is a {@link LockBackendException} (HTTP 503) whose message never
 * carries the URI (it may hold a password), and is tried again on the next use.
 *
 * <p>Thread-safe: the delegate is created once under this object's monitor.
 */
final class LazyRedisLocks implements LockService {
  private static final Logger log = LoggerFactory.getLogger(LazyRedisLocks.class);

  private final String uri;
  private final WriteGuardListener listener;
  private RedisTarget target;
  private volatile RedisLockService delegate;
  private boolean closed;
  /** The readiness probe's connection, opened on the first probe. */
  private StatefulRedisConnection<String, String> probe;

  /** {@code uri} null means "start an embedded Redis when first needed". */
  LazyRedisLocks(String uri, WriteGuardListener listener) {
    this.uri = uri == null || uri.isBlank() ? null : uri;
    this.listener = listener;
  }

  /** True when a URI was given (so the command connects at start and fails fast). */
  boolean isConfigured() {
    return uri != null;
  }

  /**
   * Connects now (or starts the embedded server).
   *
   * @throws LockBackendException when Redis cannot be reached or started
   */
  synchronized RedisLockService connect() {
    if (closed) {
      throw new LockBackendException("the redis lock service is closed", null);
    }
    if (delegate != null) {
      return delegate;
    }
    RedisTarget opened;
    try {
      opened = RedisTarget.open(uri);
    } catch (UsageException | IllegalStateException e) {
      log.warn("redis-lock: {}", e.getMessage());
      throw new LockBackendException("Redis is unreachable", e);
    }
    if (opened.isEmbedded()) {
      log.warn("redis-lock: no --redis-uri given, started an embedded Redis at {}; it locks for"
          + " this process only, so give every serve process the same --redis-uri",
          opened.displayUri());
    }
    try {
      delegate = RedisLockService.builder().client(opened.client()).listener(listener).build();
    } catch (RuntimeException e) {
      opened.close();
      throw e instanceof LockBackendException ? e
          : new LockBackendException("cannot use Redis for locks", e);
    }
    target = opened;
    return delegate;
  }

  /** True once Redis is connected (a URI was given, or a redis-lock request started it). */
  boolean inUse() {
    return delegate != null;
  }

  /**
   * Sends {@code PING} on a connection kept for this purpose; bounded by the URI's command
   * timeout (5 s), and failing at once while the connection is down.
   *
   * @throws RuntimeException (Lettuce's) when Redis does not answer
   */
  synchronized void ping() {
    if (closed || target == null) {
      throw new LockBackendException("the redis lock service is not connected", null);
    }
    if (probe == null) {
      probe = target.client().connect();
    }
    probe.sync().ping();
  }

  private RedisLockService service() {
    RedisLockService d = delegate;
    return d != null ? d : connect();
  }

  @Override
  public LockHandle acquire(String key, Duration waitTimeout) {
    return service().acquire(key, waitTimeout);
  }

  @Override
  public Optional<LockHandle> tryAcquire(String key) {
    return service().tryAcquire(key);
  }

  @Override
  public String backend() {
    return RedisLockService.BACKEND;
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (probe != null) {
      probe.closeAsync();
      probe = null;
    }
    if (delegate != null) {
      delegate.close();
      delegate = null;
    }
    if (target != null) {
      target.close();
      target = null;
    }
  }
}
