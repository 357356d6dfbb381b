package previousapi;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.exists;
import static com.mongodb.client.model.Updates.set;

import com.mongodb.client.MongoCollection;
import io.writeguard.Deadlines;
import io.writeguard.lock.LockService;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.path.AtomicUpdates;
import io.writeguard.path.FieldPath;
import io.writeguard.redis.RedisLockService;
import io.writeguard.update.LockedUpdater;
import io.writeguard.update.Mutation;
import io.writeguard.update.TypedDocuments;
import io.writeguard.update.UpdateOutcome;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import org.bson.Document;

/**
 * Core, Redis and starter code as the README and docs showed it before the packages were
 * layered: the imports are the old ones. PreviousApiCompileTest compiles it as it is (every
 * error must be a break the CHANGELOG lists) and with the CHANGELOG's moves applied (no error).
 */
class PreviousCoreUsage {
  void markAsRead(MongoCollection<Document> docs, Object id, String key, String skey, int i,
      String userId) {
    FieldPath read = FieldPath.of("infos").field(key).field(skey).index(i).field("read");
    docs.updateOne(and(eq("_id", id), exists(read.parent().orElseThrow().toString())),
        AtomicUpdates.addToSet(read, userId));
  }

  UpdateOutcome optimistic(MongoCollection<Document> accounts, Object id) {
    VersionedUpdater updater = VersionedUpdater.builder(accounts).build();
    return Deadlines.within(Duration.ofSeconds(2),
        () -> updater.update(id, current -> Mutation.update(set("status", "next"))));
  }

  UpdateOutcome locked(MongoCollection<Document> invoices, MongoCollection<Document> locks,
      Object id) {
    LockService mongoLocks = MongoLeaseLockService.builder(locks).build();
    LockedUpdater updater = LockedUpdater.builder(invoices, mongoLocks).build();
    return updater.update(id, doc -> Mutation.replace(doc));
  }

  LockService redis() {
    return RedisLockService.builder().uri("redis://127.0.0.1:6379").lease(Duration.ofSeconds(30))
        .build();
  }

  <T> TypedDocuments<T> typed(MongoCollection<T> collection) {
    return TypedDocuments.of(collection);
  }
}
