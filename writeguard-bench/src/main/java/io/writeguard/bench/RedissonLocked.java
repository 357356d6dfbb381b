package io.writeguard.bench;

import java.util.concurrent.TimeUnit;
import org.bson.types.ObjectId;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The peer of WriteGuard's Redis lock: Redisson's {@link RLock} as its documentation uses it,
 * {@code tryLock(wait)} with the watchdog renewing the lease, then find, change, replace,
 * {@code unlock()} in {@code finally}. Not fenced: Redisson has no fencing token for a plain
 * {@code RLock}. Waits up to {@link HotDocument#LOCK_WAIT}, as the WriteGuard locks do.
 * Thread-safe (an {@code RLock} belongs to the thread that locked it, which is the one that
 * unlocks it here).
 */
final class RedissonLocked implements Contender {
  static final String NAME = "redisson-rlock";
  static final String PREFIX = "bench:redisson:";

  private final RedissonClient redisson;
  private final FindAndReplace write;

  RedissonLocked(Backends backends) {
    Config config = new Config();
    config.useSingleServer().setAddress(backends.redisUri(NAME));
    this.redisson = Redisson.create(config);
    this.write = new FindAndReplace(backends.hot(), () -> {});
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int add(ObjectId docId, long opId) {
    RLock lock = redisson.getLock(PREFIX + docId.toHexString());
    boolean locked;
    try {
      locked = lock.tryLock(HotDocument.LOCK_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for " + lock.getName(), e);
    }
    if (!locked) {
      throw new BudgetExhaustedException("redisson tryLock timed out on " + lock.getName(), null);
    }
    try {
      write.addBit(docId, opId);
      return 1;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    redisson.shutdown();
  }
}
