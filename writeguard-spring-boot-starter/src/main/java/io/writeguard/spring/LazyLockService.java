package io.writeguard.spring;

import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A {@link LockService} that connects on first use, so the application starts while the lock
 * store is down: the starter's Redis lock is one. Until the store answers, every call fails with
 * a {@link LockBackendException} (a {@code DataAccessResourceFailureException} once translated,
 * as in {@code @LeaseLocked} methods) whose message says the store cannot be reached and why; the
 * first call after it is back connects and works.
 *
 * <p>Connecting is tried at most once per {@link #RETRY_AFTER}: calls in between fail at once
 * with the last failure, so a store that is down is not asked to connect by every caller.
 * Callers that arrive while a connection is being made wait for it (bounded by the client's
 * connect timeout). Thread-safe.
 */
public final class LazyLockService implements LockService {
  /** How long a failed connection is remembered before the next call tries again. */
  public static final Duration RETRY_AFTER = Duration.ofSeconds(1);

  private final String backend;
  private final Supplier<? extends LockService> connect;
  private volatile LockService delegate;
  private LockBackendException lastFailure; // guarded by this
  private long lastFailureNanos; // guarded by this
  private boolean closed; // guarded by this

  /**
   * @param backend the backend name, known before connecting ({@code redis})
   * @param connect makes the connected service; throws when the store cannot be reached
   */
  public LazyLockService(String backend, Supplier<? extends LockService> connect) {
    this.backend = Objects.requireNonNull(backend, "backend");
    this.connect = Objects.requireNonNull(connect, "connect");
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
    return backend;
  }

  /** Whether the service has connected. */
  public boolean connected() {
    return delegate != null;
  }

  /** The connected service, connecting now if need be; for code that needs its own API. */
  public LockService service() {
    LockService d = delegate;
    return d != null ? d : connect();
  }

  /** Closes the connected service, if any; later calls fail. */
  @Override
  public synchronized void close() {
    closed = true;
    if (delegate != null) {
      delegate.close();
    }
  }

  private synchronized LockService connect() {
    if (delegate != null) {
      return delegate;
    }
    if (closed) {
      throw new IllegalStateException("the " + backend + " lock service is closed");
    }
    if (lastFailure != null && System.nanoTime() - lastFailureNanos < RETRY_AFTER.toNanos()) {
      throw lastFailure;
    }
    try {
      delegate = connect.get();
      lastFailure = null;
      return delegate;
    } catch (LockBackendException | WriteGuardInterruptedException e) {
      throw remember(e instanceof LockBackendException backendFailure ? backendFailure : null, e);
    } catch (RuntimeException e) {
      throw remember(new LockBackendException(backend + " lock service cannot reach its store: "
          + e, e), e);
    }
  }

  private RuntimeException remember(LockBackendException failure, RuntimeException thrown) {
    if (failure != null) {
      lastFailure = failure;
      lastFailureNanos = System.nanoTime();
      return failure;
    }
    return thrown; // an interrupt is the caller's, not the store's
  }
}
