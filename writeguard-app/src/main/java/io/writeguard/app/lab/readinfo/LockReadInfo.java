package io.writeguard.app.lab.readinfo;

import io.lettuce.core.RedisClient;
import io.writeguard.app.lab.Strategy;
import io.writeguard.app.lab.StrategyContext;
import io.writeguard.app.readinfo.MarkReadDeps;
import io.writeguard.app.readinfo.MarkReadStrategies;
import io.writeguard.lock.LockService;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.redis.RedisLockService;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;

/**
 * The lab's lock strategies and {@code adaptive}: each run gets lock services of its own,
 * reporting lock waits to the run's listener, and closes them at the end.
 *
 * <p>The lease-lock strategies write the way a user of a lock does: a fenced read and a fenced
 * replace, without a version filter ({@link MarkReadDeps.Builder#versionFilterUnderLock}).
 * Then only the lock and its fence stand between two writers, so a lock that lets two holders
 * in loses marks or meets fenced rejections, both of which fail the run, instead of being
 * rescued by a version check that would merely count a conflict.
 *
 * <ul>
 *   <li>{@code local-lock}: a {@code LocalLockService} (one process only);
 *   <li>{@code mongo-lock}: a {@code MongoLeaseLockService} on collection
 *       {@code <run collection>_locks}, dropped when the run ends;
 *   <li>{@code redis-lock}: a {@code RedisLockService} on the lab's Redis client, keys
 *       {@code wg:lab:<run collection>:<_id>} (released ones vanish; the token counter
 *       {@code wg:lab:} stays), passing its lease on between the lab's clients like the MongoDB
 *       lock does ({@code handoffBatch(32)});
 *   <li>{@code adaptive}: optimistic, a hot document's marks queue on a {@code LocalLockService}.
 * </ul>
 */
final class LockReadInfo {
  static final String REDIS_PREFIX = "wg:lab:";
  /**
   * Holders of the lab's process that share one Redis lease in turn, as the MongoDB lease lock
   * does by default (32): without it every click pays a Redis round trip on top of the
   * in-process hand-over.
   */
  static final int HANDOFF_BATCH = 32;

  private LockReadInfo() {}

  static Strategy<Mark> local(StrategyContext context) {
    return new SharedReadInfo(MarkReadStrategies.create("local-lock",
        SharedReadInfo.deps(context, OptimisticReadInfo.POLICY, () -> {}).build()), () -> {},
        true);
  }

  static Strategy<Mark> adaptive(StrategyContext context) {
    return SharedReadInfo.create("adaptive", context, OptimisticReadInfo.POLICY, () -> {});
  }

  static Strategy<Mark> mongo(StrategyContext context) {
    MongoDatabase database = context.services().database().orElseThrow(() ->
        new IllegalStateException("mongo-lock needs the lab's database for its lock collection"));
    MongoCollection<?> lockCollection = database.getCollection(
        context.collection().getNamespace().getCollectionName() + "_locks");
    MongoLeaseLockService locks = MongoLeaseLockService.builder(lockCollection)
        .listener(context.listener())
        .build();
    try {
      return fenced("mongo-lock", context, locks, () -> {
        locks.close();
        lockCollection.drop();
      });
    } catch (RuntimeException e) {
      locks.close();
      throw e;
    }
  }

  static Strategy<Mark> redis(StrategyContext context) {
    RedisClient client = context.services().redis().orElseThrow(() ->
        new IllegalStateException("redis-lock needs Redis, and the lab has none"));
    RedisLockService locks = RedisLockService.builder()
        .client(client)
        .keyPrefix(REDIS_PREFIX)
        .handoffBatch(HANDOFF_BATCH)
        .listener(context.listener())
        .build();
    try {
      return fenced("redis-lock", context, locks, locks::close);
    } catch (RuntimeException e) {
      locks.close();
      throw e;
    }
  }

  /**
   * Lease-lock strategy {@code name} ({@code mongo-lock} or {@code redis-lock}) on
   * {@code locks}: fenced read and fenced replace without a version filter, an exclusive-lock
   * strategy for the lab's {@code lock_violations}. Tests plug a broken lock in here.
   */
  static Strategy<Mark> fenced(String name, StrategyContext context, LockService locks,
      AutoCloseable resources) {
    return fenced(name, context, locks, resources, () -> {});
  }

  /** The same, running {@code betweenReadAndWrite} between each fenced read and its write. */
  static Strategy<Mark> fenced(String name, StrategyContext context, LockService locks,
      AutoCloseable resources, Runnable betweenReadAndWrite) {
    MarkReadDeps.Builder deps = SharedReadInfo.deps(context, OptimisticReadInfo.POLICY,
        betweenReadAndWrite).versionFilterUnderLock(false);
    if (name.equals("redis-lock")) {
      deps.redisLocks(locks);
    } else {
      deps.mongoLocks(locks);
    }
    return new SharedReadInfo(MarkReadStrategies.create(name, deps.build()), resources, true);
  }
}
