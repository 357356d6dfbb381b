package io.writeguard.lock;

import io.writeguard.internal.LockArguments;
import java.util.concurrent.atomic.AtomicBoolean;

/** A lock held from a {@link LocalLockService}. Never lost: no lease. Thread-safe. */
final class LocalLockHandle implements LockHandle {
  private final LocalLockService service;
  private final String key;
  private final long token;
  private final long acquiredAtNanos;
  private final AtomicBoolean released = new AtomicBoolean();

  LocalLockHandle(LocalLockService service, String key, long token, long acquiredAtNanos) {
    this.service = service;
    this.key = key;
    this.token = token;
    this.acquiredAtNanos = acquiredAtNanos;
  }

  @Override
  public String key() {
    return key;
  }

  @Override
  public long token() {
    return token;
  }

  long acquiredAtNanos() {
    return acquiredAtNanos;
  }

  /** Always false: an in-process lock lives as long as its handle is open. */
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
      service.release(this);
    }
  }

  @Override
  public String toString() {
    return "LocalLockHandle[key=" + LockArguments.shorten(key) + ", token=" + token
        + (released.get() ? ", released" : "") + "]";
  }
}
