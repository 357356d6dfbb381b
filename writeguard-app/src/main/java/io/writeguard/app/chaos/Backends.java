package io.writeguard.app.chaos;

import com.mongodb.ConnectionString;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.app.cli.MongoTarget;
import io.writeguard.app.readinfo.MarkReadDeps;
import io.writeguard.app.readinfo.MarkReadStrategies;
import io.writeguard.app.readinfo.MarkReadStrategy;
import io.writeguard.lock.LockService;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.redis.RedisLockService;
import java.util.HashMap;
import java.util.Map;
import org.bson.Document;

/**
 * The connections and strategies of one chaos client process: a MongoDB client whose every
 * wait is bounded by the MongoDB timeout ({@link MongoTarget#settings}), the MongoDB lease
 * lock, the Redis lock, and one strategy per name for each workload. The lock services and
 * strategies are built the same way in the coordinator and in the holder child, so the two
 * processes contend on the same locks and documents.
 *
 * <p>The lease-lock strategies write fenced only (no version filter under the lock), so that a
 * stale holder whose write got past the fence would show up as a lost operation instead of
 * being absorbed by a version check. A test hook runs between the read and the write of the
 * read-change-write strategies on threads that set {@link #HOOK}; that is where the holder
 * child is paused. Thread-safe; close it after the fault.
 */
final class Backends implements AutoCloseable {
  /** Runs between read and write on the threads that set it (the paused holder's threads). */
  static final ThreadLocal<Runnable> HOOK = new ThreadLocal<>();

  final ChaosSettings settings;
  final MongoClient client;
  final MongoCollection<Document> docs;
  final MongoLeaseLockService mongoLocks;
  final RedisLockService redisLocks;
  private final MarkReadDeps deps;
  private final Map<String, MarkReadStrategy> marks = new HashMap<>();
  private final Map<String, LedgerOps> ledgers = new HashMap<>();

  Backends(ChaosSettings settings, String mongoUri, String redisUri, String database) {
    this.settings = settings;
    this.client = MongoClients.create(MongoTarget.settings(new ConnectionString(mongoUri), 64,
        settings.mongoTimeout()));
    MongoDatabase db = client.getDatabase(database);
    this.docs = db.getCollection("docs");
    this.mongoLocks = MongoLeaseLockService.builder(db, "locks")
        .lease(settings.lease())
        .renewInterval(settings.lease().dividedBy(3))
        .build();
    this.redisLocks = RedisLockService.builder()
        .uri(redisUri)
        .keyPrefix("wg:chaos:" + database + ":")
        .lease(settings.lease())
        .renewInterval(settings.lease().dividedBy(3))
        .commandTimeout(settings.mongoTimeout())
        .build();
    this.deps = MarkReadDeps.builder(docs)
        .mongoLocks(mongoLocks)
        .redisLocks(redisLocks)
        .lockWait(settings.lockWait())
        .versionFilterUnderLock(false)
        .betweenReadAndWrite(Backends::runHook)
        .build();
  }

  static void runHook() {
    Runnable hook = HOOK.get();
    if (hook != null) {
      hook.run();
    }
  }

  synchronized MarkReadStrategy mark(String strategy) {
    return marks.computeIfAbsent(strategy, s -> MarkReadStrategies.create(s, deps));
  }

  synchronized LedgerOps ledger(String strategy) {
    return ledgers.computeIfAbsent(strategy, s -> new LedgerOps(s, docs, locks(s),
        deps.localLocks(), settings));
  }

  private LockService locks(String strategy) {
    return strategy.equals("redis-lock") ? redisLocks : mongoLocks;
  }

  @Override
  public void close() {
    closeQuietly(redisLocks);
    closeQuietly(mongoLocks);
    closeQuietly(client);
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // the fault may have left the backend unreachable; closing anyway
    }
  }
}
