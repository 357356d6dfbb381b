package io.writeguard.bench;

import io.writeguard.deadline.Deadlines;
import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockTimeoutException;
import java.time.Duration;
import java.util.Optional;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * The same lease lock as {@link WriteGuardLocked}, used by hand as a careful user would without
 * {@code LockedUpdater}: take the document's lock, read with a fenced claim, set the bit, write
 * a fenced {@code replaceOne}, release. The yardstick for what {@code LockedUpdater} adds to
 * one lock hand-off, one fenced read and one fenced write (no group commit, no version check,
 * no retries).
 *
 * <p>The {@code -bounded} variants run each operation under the deadline {@code LockedUpdater}
 * gives a call ({@code Deadlines.within} the lock wait plus the default retry deadline), so the
 * lock's take and release, the claim and the write are each bounded by the time left, as the
 * library's own calls are. Side by side with the plain rows they show what that bound costs;
 * beside {@code LockedUpdater} they show what it adds besides the bound. Thread-safe.
 */
final class LockByHand implements Contender {
  static final String MONGO = "mongo-lock-by-hand";
  static final String REDIS = "redis-lock-by-hand";
  static final String MONGO_BOUNDED = MONGO + "-bounded";
  static final String REDIS_BOUNDED = REDIS + "-bounded";
  /** A call's deadline in the bounded variants: {@code LockedUpdater}'s default budget. */
  private static final Duration CALL_BUDGET = HotDocument.LOCK_WAIT.plus(
      HotDocument.BUDGET.deadline());

  private final String name;
  private final LockService locks;
  private final FencedWriter writer;
  private final String keyPrefix;
  private final boolean bounded;

  private LockByHand(String name, LockService locks, Backends backends, boolean bounded) {
    this.name = name;
    this.bounded = bounded;
    this.locks = locks;
    this.writer = FencedWriter.of(backends.hot());
    // LockedUpdater's key, "<collection>:<_id>", so both take the very same lock
    this.keyPrefix = backends.hot().getNamespace().getCollectionName() + ":";
  }

  static LockByHand mongo(Backends backends) {
    return new LockByHand(MONGO, WriteGuardLocked.mongoLocks(backends), backends, false);
  }

  static LockByHand redis(Backends backends) {
    return new LockByHand(REDIS, WriteGuardLocked.redisLocks(backends, REDIS), backends, false);
  }

  static LockByHand mongoBounded(Backends backends) {
    return new LockByHand(MONGO_BOUNDED, WriteGuardLocked.mongoLocks(backends), backends,
        true);
  }

  static LockByHand redisBounded(Backends backends) {
    return new LockByHand(REDIS_BOUNDED, WriteGuardLocked.redisLocks(backends, REDIS_BOUNDED),
        backends, true);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int add(ObjectId docId, long opId) {
    return bounded ? Deadlines.within(CALL_BUDGET, () -> addBit(docId, opId))
        : addBit(docId, opId);
  }

  private int addBit(ObjectId docId, long opId) {
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
