package io.writeguard.bench;

import io.writeguard.lock.LockService;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.redis.RedisLockService;
import io.writeguard.update.LockedUpdater;
import io.writeguard.update.Mutation;
import io.writeguard.update.UpdateOutcome;
import org.bson.types.ObjectId;

/**
 * A WriteGuard lease lock around the read-modify-write, as WriteGuard documents it: a
 * {@link LockedUpdater} with its defaults over the lock service. Each operation's mutator sets
 * its bit on the document as read and returns it as the replacement; the updater takes the
 * lock (waiting up to {@link HotDocument#LOCK_WAIT}), reads with a fenced claim, writes the
 * replacement fenced by the token and filtered on the version read, and releases. Operations of
 * this process on the document at the same time share one lock hold, one read and one write
 * (group commit, the updater's default). Locks and updater come from their public builders, with
 * their defaults. Thread-safe.
 */
final class WriteGuardLocked implements Contender {
  static final String MONGO = "writeguard-mongo-lock";
  static final String REDIS = "writeguard-redis-lock";
  static final String LOCK_COLLECTION = "bench_locks";
  static final String REDIS_PREFIX = "wg:bench:";

  private final String name;
  private final LockService locks;
  private final LockedUpdater updater;

  private WriteGuardLocked(String name, LockService locks, Backends backends) {
    this.name = name;
    this.locks = locks;
    this.updater = LockedUpdater.builder(backends.hot(), locks)
        .lockWait(HotDocument.LOCK_WAIT)
        .strategyName("bench")
        .build();
  }

  static WriteGuardLocked mongo(Backends backends) {
    return new WriteGuardLocked(MONGO, mongoLocks(backends), backends);
  }

  static WriteGuardLocked redis(Backends backends) {
    return new WriteGuardLocked(REDIS, redisLocks(backends, REDIS), backends);
  }

  /** The MongoDB lease lock service, with its builder's defaults. */
  static LockService mongoLocks(Backends backends) {
    return MongoLeaseLockService.builder(backends.database(), LOCK_COLLECTION).build();
  }

  /** The Redis lease lock service for {@code contender}, with its builder's defaults. */
  static LockService redisLocks(Backends backends, String contender) {
    return RedisLockService.builder().uri(backends.redisUri(contender)).keyPrefix(REDIS_PREFIX)
        .build();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int add(ObjectId docId, long opId) {
    UpdateOutcome outcome;
    try {
      outcome = updater.updateOne(docId, doc -> {
        doc.put(HotDocument.BITS, HotDocument.bitsWith(doc, opId));
        return Mutation.replace(doc);
      });
    } catch (LockTimeoutException e) {
      throw new BudgetExhaustedException(e.getMessage(), e);
    }
    if (!outcome.written()) {
      throw new IllegalStateException("the bit of operation " + opId + " was not written");
    }
    return outcome.attempts();
  }

  @Override
  public void close() {
    locks.close();
  }
}
