package io.writeguard.testing;

import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-process lock service whose every release frees the lock and then reports a backend
 * failure ({@link LockBackendException}), as a lease lock's release does when its write to the
 * backend fails. For tests of work done under a lock: what the work did must not be hidden by
 * the failed release. Thread-safe.
 */
public final class ReleaseFailingLocks implements LockService {
  private final LocalLockService local = LocalLockService.create();
  private final AtomicInteger releases = new AtomicInteger();

  /** Releases so far (each one also threw). */
  public int releases() {
    return releases.get();
  }

  @Override
  public LockHandle acquire(String key, Duration waitTimeout) {
    return new Handle(local.acquire(key, waitTimeout));
  }

  @Override
  public Optional<LockHandle> tryAcquire(String key) {
    return local.tryAcquire(key).map(Handle::new);
  }

  @Override
  public String backend() {
    return "release-failing";
  }

  private final class Handle implements LockHandle {
    private final LockHandle delegate;

    Handle(LockHandle delegate) {
      this.delegate = delegate;
    }

    @Override
    public String key() {
      return delegate.key();
    }

    @Override
    public long token() {
      return delegate.token();
    }

    @Override
    public boolean isLost() {
      return delegate.isLost();
    }

    @Override
    public boolean isReleased() {
      return delegate.isReleased();
    }

    @Override
    public void close() {
      delegate.close();
      releases.incrementAndGet();
      throw new LockBackendException("injected: release of lock '" + key() + "' failed", null);
    }
  }
}
