package io.writeguard.lock;

import io.writeguard.internal.LockArguments;

/** A lock held from a {@link LocalLockService}. Never lost: no lease. Thread-safe. */
final class LocalLockHandle extends InProcessLockHandle {
  private final LocalLockService service;

  LocalLockHandle(LocalLockService service, String key, long token, long acquiredAtNanos) {
    super(key, token, acquiredAtNanos);
    this.service = service;
  }

  @Override
  void release() {
    service.release(this);
  }

  @Override
  public String toString() {
    return "LocalLockHandle[key=" + LockArguments.shorten(key()) + tokenAndState() + "]";
  }
}
