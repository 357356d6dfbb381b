package io.writeguard.app.readinfo;

import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** A lock service that hands out the given tokens in turn, and never makes anyone wait. */
final class StubLocks implements LockService {
  private final long[] tokens;
  private final AtomicInteger next = new AtomicInteger();

  StubLocks(long... tokens) {
    this.tokens = tokens;
  }

  @Override
  public LockHandle acquire(String key, Duration waitTimeout) {
    long token = tokens[Math.min(next.getAndIncrement(), tokens.length - 1)];
    return new LockHandle() {
      private volatile boolean released;

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
        return released;
      }

      @Override
      public void close() {
        released = true;
      }
    };
  }

  @Override
  public Optional<LockHandle> tryAcquire(String key) {
    return Optional.of(acquire(key, Duration.ofSeconds(1)));
  }

  @Override
  public String backend() {
    return "stub";
  }
}
