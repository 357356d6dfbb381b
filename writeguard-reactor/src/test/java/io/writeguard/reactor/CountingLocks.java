package io.writeguard.reactor;

import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the releases of every handle it gives out. */
final class CountingLocks implements LockService {
  final LocalLockService local = LocalLockService.create();
  final AtomicInteger acquired = new AtomicInteger();
  final AtomicInteger closes = new AtomicInteger();

  @Override
  public LockHandle acquire(String key, Duration waitTimeout) {
    LockHandle handle = local.acquire(key, waitTimeout);
    acquired.incrementAndGet();
    return new LockHandle() {
      @Override
      public String key() {
        return handle.key();
      }

      @Override
      public long token() {
        return handle.token();
      }

      @Override
      public boolean isLost() {
        return handle.isLost();
      }

      @Override
      public boolean isReleased() {
        return handle.isReleased();
      }

      @Override
      public void close() {
        closes.incrementAndGet();
        handle.close();
      }
    };
  }

  @Override
  public Optional<LockHandle> tryAcquire(String key) {
    return local.tryAcquire(key);
  }

  @Override
  public String backend() {
    return "counting";
  }
}
