package io.writeguard.lock;

import java.time.Duration;
import java.util.Optional;

/**
 * One lock contract for every backend: in-process, MongoDB lease, Redis lease.
 *
 * <p>Ownership belongs to the returned {@link LockHandle}, not to a thread: a handle may be
 * released from any thread, so async and virtual-thread code works. Locks are not reentrant: a
 * second acquire of a held key waits like any other caller.
 *
 * <p>"Not acquired in time" is a {@link LockTimeoutException}; a backend that fails (server
 * gone, command error) is a {@link LockBackendException}, never reported as "busy".
 * Implementations are thread-safe.
 */
public interface LockService extends AutoCloseable {

  /**
   * Waits up to {@code waitTimeout} for {@code key}.
   *
   * @throws LockTimeoutException if the lock was not had in time
   * @throws LockBackendException if the backend failed
   * @throws io.writeguard.WriteGuardInterruptedException if interrupted (flag restored)
   * @throws IllegalArgumentException if the key is empty or too long, or the timeout not positive
   */
  LockHandle acquire(String key, Duration waitTimeout);

  /** Takes {@code key} only if it is free now; never waits. */
  Optional<LockHandle> tryAcquire(String key);

  /** A short backend name for events and reports: {@code local}, {@code mongo}, {@code redis}. */
  String backend();

  /** Stops watchdogs and background work. Held handles stay valid until their lease runs out. */
  @Override
  default void close() {}
}
