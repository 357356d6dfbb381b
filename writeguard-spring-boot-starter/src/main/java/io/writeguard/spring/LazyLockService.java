package io.writeguard.spring;

import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.internal.Deadline;
import io.writeguard.internal.LockArguments;
import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
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
 * While one caller connects, the others wait for it no longer than they would wait for the lock
 * itself: {@code acquire} up to its wait timeout or the caller's deadline
 * ({@code Deadlines.within}), whichever comes first, {@code tryAcquire} not at all (both then fail
 * with a {@link LockBackendException} saying the service is still connecting). A connect that
 * fails because its caller was interrupted is that caller's
 * {@link WriteGuardInterruptedException} (flag kept), not a failure of the store: nobody else
 * is told the store is down. Thread-safe.
 */
public final class LazyLockService implements LockService {
  /** How long a failed connection is remembered before the next call tries again. */
  public static final Duration RETRY_AFTER = Duration.ofSeconds(1);

  private final String backend;
  private final Supplier<? extends LockService> connect;
  private volatile LockService delegate;
  private final ReentrantLock connecting = new ReentrantLock();
  private LockBackendException lastFailure; // guarded by connecting
  private long lastFailureNanos; // guarded by connecting
  private boolean closed; // guarded by connecting

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
    // The caller's value, checked before any connect; one too long for nanos waits "forever".
    long waitNanos = LockArguments.checkTimeoutNanos(waitTimeout);
    long start = System.nanoTime();
    // Another caller's connect is waited for as the lock would be: cut to the caller's own
    // deadline, if it has one (the connected service cuts the lock wait itself).
    Duration connectWait = Deadline.capWait(waitTimeout);
    LockService d = connected(connectWait, connectWait == waitTimeout
        ? waitNanos : Math.max(0, connectWait.toNanos()));
    Duration left = waitTimeout.minusNanos(System.nanoTime() - start);
    // A connect that used the whole wait still leaves the caller its one try at the key, as a
    // wait cut to nothing by a deadline does.
    return d.acquire(key, LockArguments.atLeastOneTry(left));
  }

  @Override
  public Optional<LockHandle> tryAcquire(String key) {
    return connected(Duration.ZERO, 0).tryAcquire(key);
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
    if (d != null) {
      return d;
    }
    connecting.lock();
    try {
      return connect();
    } finally {
      connecting.unlock();
    }
  }

  /**
   * The connected service, waiting at most {@code wait} ({@code waitNanos}, saturated) for
   * another caller's connect.
   */
  private LockService connected(Duration wait, long waitNanos) {
    LockService d = delegate;
    if (d != null) {
      return d;
    }
    boolean mine;
    try {
      mine = connecting.tryLock(waitNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WriteGuardInterruptedException("waiting for the " + backend + " lock service to"
          + " connect", e);
    }
    if (!mine) {
      throw new LockBackendException("the " + backend + " lock service is still connecting (another"
          + " caller is making its connection); not waited for longer than " + wait.toMillis()
          + "ms", null);
    }
    try {
      return connect();
    } finally {
      connecting.unlock();
    }
  }

  /** Closes the connected service, if any; later calls fail. */
  @Override
  public void close() {
    connecting.lock();
    try {
      closed = true;
      if (delegate != null) {
        delegate.close();
      }
    } finally {
      connecting.unlock();
    }
  }

  /** Called holding {@link #connecting}. */
  private LockService connect() {
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
    } catch (RuntimeException e) {
      if (!(e instanceof WriteGuardInterruptedException) && interrupted(e)) {
        // The client gave up because this caller was interrupted: the caller's, not the store's.
        InterruptedException cause = new InterruptedException("connecting the " + backend
            + " lock service");
        cause.initCause(e);
        throw new WriteGuardInterruptedException("connecting the " + backend + " lock service",
            cause);
      }
      throw failure(e);
    }
  }

  /** True if the thread is interrupted now, or {@code e} was caused by an interrupt. */
  private static boolean interrupted(Throwable e) {
    if (Thread.currentThread().isInterrupted()) {
      return true;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InterruptedException) {
        return true;
      }
    }
    return false;
  }

  private RuntimeException failure(RuntimeException e) {
    if (e instanceof LockBackendException || e instanceof WriteGuardInterruptedException) {
      return remember(e instanceof LockBackendException backendFailure ? backendFailure : null, e);
    }
    return remember(new LockBackendException(backend + " lock service cannot reach its store: "
        + e, e), e);
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
