package io.writeguard.spring;

import io.writeguard.deadline.Deadlines;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import java.time.Duration;
import java.util.Optional;

/**
 * A lock service whose waits run under a call deadline that began when it was made: how
 * {@code writeguard.lock.call-deadline} reaches the lock wait of an asynchronous
 * {@link LeaseLocked} method, which runs on a lock-wait thread where the caller's deadline is
 * not set. The wait ends as a blocking method's does when the deadline cuts it. Made per call
 * (per subscription for a Mono); only {@link #acquire} is bounded.
 */
final class DeadlineBoundLocks implements LockService {
  private final LockService service;
  private final Duration deadline;
  private final long startNanos = System.nanoTime();

  DeadlineBoundLocks(LockService service, Duration deadline) {
    this.service = service;
    this.deadline = deadline;
  }

  @Override
  public LockHandle acquire(String key, Duration waitTimeout) {
    // A wait queued behind busy lock-wait threads has spent part of the call's budget already.
    long leftNanos = deadline.toNanos() - (System.nanoTime() - startNanos);
    return Deadlines.within(Duration.ofNanos(Math.max(1, leftNanos)),
        () -> service.acquire(key, waitTimeout));
  }

  @Override
  public Optional<LockHandle> tryAcquire(String key) {
    return service.tryAcquire(key);
  }

  @Override
  public String backend() {
    return service.backend();
  }
}
