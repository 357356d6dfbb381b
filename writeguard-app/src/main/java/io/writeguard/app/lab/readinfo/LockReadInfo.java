package io.writeguard.app.lab.readinfo;

import io.lettuce.core.RedisClient;
import io.writeguard.app.lab.Strategy;
import io.writeguard.app.lab.StrategyContext;
import io.writeguard.app.readinfo.MarkReadDeps;
import io.writeguard.app.readinfo.MarkReadStrategies;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.redis.RedisLockService;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;

/**
 * The lab's lock strategies and {@code adaptive}: each run gets lock services of its own,
 * reporting lock waits to the run's listener, and closes them at the end.
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
    return SharedReadInfo.create("local-lock", context, OptimisticReadInfo.POLICY, () -> {});
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
      MarkReadDeps deps = SharedReadInfo.deps(context, OptimisticReadInfo.POLICY, () -> {})
          .mongoLocks(locks).build();
      return new SharedReadInfo(MarkReadStrategies.create("mongo-lock", deps), () -> {
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
      MarkReadDeps deps = SharedReadInfo.deps(context, OptimisticReadInfo.POLICY, () -> {})
          .redisLocks(locks).build();
      return new SharedReadInfo(MarkReadStrategies.create("redis-lock", deps), locks::close);
    } catch (RuntimeException e) {
      locks.close();
      throw e;
    }
  }
}
