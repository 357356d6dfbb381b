package io.writeguard.app.serve;

import io.writeguard.embedded.EmbeddedRedis;
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
 * connection that fails is a {@link LockBackendException} (HTTP 503) and is tried again on the
 * next use.
 *
 * <p>Thread-safe: the delegate is created once under this object's monitor.
 */
final class LazyRedisLocks implements LockService {
  private static final Logger log = LoggerFactory.getLogger(LazyRedisLocks.class);

  private final String uri;
  private final WriteGuardListener listener;
  private EmbeddedRedis embedded;
  private volatile RedisLockService delegate;
  private boolean closed;

  /** {@code uri} null means "start an embedded Redis when first needed". */
  LazyRedisLocks(String uri, WriteGuardListener listener) {
    this.uri = uri == null || uri.isBlank() ? null : uri;
    this.listener = listener;
  }

  /** True when a URI was given (so the command connects at start and fails fast). */
  boolean isConfigured() {
    return uri != null;
  }

  /** Connects now (or starts the embedded server). */
  synchronized RedisLockService connect() {
    if (closed) {
      throw new LockBackendException("the redis lock service is closed", null);
    }
    if (delegate != null) {
      return delegate;
    }
    String target = uri;
    if (target == null) {
      try {
        embedded = EmbeddedRedis.start();
      } catch (RuntimeException e) {
        throw new LockBackendException("cannot start an embedded Redis: " + e.getMessage(), e);
      }
      target = embedded.uri();
      log.warn("redis-lock: no --redis-uri given, started an embedded Redis at {}; it locks for"
          + " this process only, so give every serve process the same --redis-uri", target);
    }
    try {
      delegate = RedisLockService.builder().uri(target).listener(listener).build();
    } catch (RuntimeException e) {
      stopEmbedded();
      throw e instanceof LockBackendException ? e
          : new LockBackendException("cannot use Redis at " + target + ": " + e.getMessage(), e);
    }
    return delegate;
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
    if (delegate != null) {
      delegate.close();
      delegate = null;
    }
    stopEmbedded();
  }

  private void stopEmbedded() {
    if (embedded != null) {
      embedded.close();
      embedded = null;
    }
  }
}
