package io.writeguard.bench;

import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.redis.RedisLockService;
import org.bson.Document;
import org.bson.types.Binary;
import org.bson.types.ObjectId;

/**
 * A WriteGuard lease lock around the read-modify-write, as WriteGuard documents it: acquire
 * (waiting up to {@link HotDocument#LOCK_WAIT}), read with {@link FencedWriter#claim} (which
 * raises the document's fence to the lock's token), set the bit, {@link FencedWriter#replaceOne}
 * fenced by the token, release. Locks and writer come from their public builders, with their
 * defaults. Thread-safe.
 */
final class WriteGuardLocked implements Contender {
  static final String MONGO = "writeguard-mongo-lock";
  static final String REDIS = "writeguard-redis-lock";
  static final String LOCK_COLLECTION = "bench_locks";
  static final String REDIS_PREFIX = "wg:bench:";

  private final String name;
  private final LockService locks;
  private final FencedWriter writer;

  private WriteGuardLocked(String name, LockService locks, Backends backends) {
    this.name = name;
    this.locks = locks;
    this.writer = FencedWriter.of(backends.hot());
  }

  static WriteGuardLocked mongo(Backends backends) {
    return new WriteGuardLocked(MONGO,
        MongoLeaseLockService.builder(backends.database(), LOCK_COLLECTION).build(), backends);
  }

  static WriteGuardLocked redis(Backends backends) {
    return new WriteGuardLocked(REDIS, RedisLockService.builder()
        .uri(backends.redisUri(REDIS)).keyPrefix(REDIS_PREFIX).build(), backends);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int add(ObjectId docId, long opId) {
    LockHandle lock;
    try {
      lock = locks.acquire(docId.toHexString(), HotDocument.LOCK_WAIT);
    } catch (LockTimeoutException e) {
      throw new BudgetExhaustedException(e.getMessage(), e);
    }
    try (lock) {
      Document doc = writer.claim(lock, docId).orElseThrow(() ->
          new IllegalStateException("no document _id=" + docId));
      doc.put(HotDocument.BITS, new Binary(HotDocument.withBit(HotDocument.bitsOf(doc), opId)));
      FencedWriter.Outcome outcome = writer.replaceOne(lock, docId, doc);
      if (outcome != FencedWriter.Outcome.APPLIED) {
        throw new IllegalStateException("fenced replace of _id=" + docId + ": " + outcome);
      }
      return 1;
    }
  }

  @Override
  public void close() {
    locks.close();
  }
}
