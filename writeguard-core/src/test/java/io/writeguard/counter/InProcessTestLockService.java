package io.writeguard.counter;

import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * TEST DOUBLE: a real mutual-exclusion {@link LockService} on {@link Semaphore}s, for tests of
 * code that takes a lock while the production implementations live elsewhere. One fair
 * semaphore per key (never removed: fine for a test), not reentrant, releasable from any
 * thread, released once. Counts acquisitions so tests can see that a lock was taken.
 */
final class InProcessTestLockService implements LockService {
  private final ConcurrentHashMap<String, Semaphore> keys = new ConcurrentHashMap<>();
  private final AtomicLong tokens = new AtomicLong();
  final AtomicInteger acquisitions = new AtomicInteger();

  @Override
  public LockHandle acquire(String key, Duration waitTimeout) {
    Semaphore semaphore = keys.computeIfAbsent(key, k -> new Semaphore(1, true));
    try {
      if (!semaphore.tryAcquire(waitTimeout.toNanos(), TimeUnit.NANOSECONDS)) {
        throw new LockTimeoutException(backend(), key, waitTimeout, semaphore.getQueueLength());
      }
    } catch (InterruptedException e) {
      throw new WriteGuardInterruptedException("waiting for test lock " + key, e);
    }
    return handle(key, semaphore);
  }

  @Override
  public Optional<LockHandle> tryAcquire(String key) {
    Semaphore semaphore = keys.computeIfAbsent(key, k -> new Semaphore(1, true));
    return semaphore.tryAcquire() ? Optional.of(handle(key, semaphore)) : Optional.empty();
  }

  private LockHandle handle(String key, Semaphore semaphore) {
    acquisitions.incrementAndGet();
    long token = tokens.incrementAndGet();
    AtomicBoolean released = new AtomicBoolean();
    return new LockHandle() {
      @Override
      public String key() {
        return key;
      }

      @Override
      public long token() {
        return token;
      }

      @Override
      public boolean isLost() {
        return false;
      }

      @Override
      public boolean isReleased() {
        return released.get();
      }

      @Override
      public void close() {
        if (released.compareAndSet(false, true)) {
          semaphore.release();
        }
      }
    };
  }

  @Override
  public String backend() {
    return "test-local";
  }
}
