package io.writeguard.bench;

import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockTimeoutException;
import java.util.Optional;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * The same lease lock as {@link WriteGuardLocked}, used by hand as a careful user would without
 * {@code LockedUpdater}: take the document's lock, read with a fenced claim, set the bit, write
 * a fenced {@code replaceOne}, release. The yardstick for what {@code LockedUpdater} adds to
 * one lock hand-off, one fenced read and one fenced write (no group commit, no version check,
 * no retries). Thread-safe.
 */
final class LockByHand implements Contender {
  static final String MONGO = "mongo-lock-by-hand";
  static final String REDIS = "redis-lock-by-hand";

  private final String name;
  private final LockService locks;
  private final FencedWriter writer;
  private final String keyPrefix;

  private LockByHand(String name, LockService locks, Backends backends) {
    this.name = name;
    this.locks = locks;
    this.writer = FencedWriter.of(backends.hot());
    // LockedUpdater's key, "<collection>:<_id>", so both take the very same lock
    this.keyPrefix = backends.hot().getNamespace().getCollectionName() + ":";
  }

  static LockByHand mongo(Backends backends) {
    return new LockByHand(MONGO, WriteGuardLocked.mongoLocks(backends), backends);
  }

  static LockByHand redis(Backends backends) {
    return new LockByHand(REDIS, WriteGuardLocked.redisLocks(backends, REDIS), backends);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int add(ObjectId docId, long opId) {
    try (LockHandle lock = locks.acquire(keyPrefix + docId.toHexString(),
        HotDocument.LOCK_WAIT)) {
      Optional<Document> read = writer.claim(lock, docId);
      Document doc = read.orElseThrow(() -> new IllegalStateException("no document " + docId));
      doc.put(HotDocument.BITS, HotDocument.bitsWith(doc, opId));
      if (writer.replaceOne(lock, docId, doc) != FencedWriter.Outcome.APPLIED) {
        throw new IllegalStateException("the bit of operation " + opId + " was not written");
      }
      return 1;
    } catch (LockTimeoutException e) {
      throw new BudgetExhaustedException(e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    locks.close();
  }
}
