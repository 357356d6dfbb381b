package io.writeguard.redis;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import io.writeguard.lock.LockHandle;
import java.time.Duration;
import org.bson.Document;

/**
 * A separate JVM for {@link TwoProcessLockTest}: increments one MongoDB document under the
 * Redis lock and reports what MongoDB acknowledged, on stdout.
 *
 * <pre>
 * contend REDIS_URI MONGO_URI DB KEY PREFIX COUNT   read, +1, replace filtered on the version read; COUNT times
 * hold    REDIS_URI MONGO_URI DB KEY PREFIX         take the lock (1 s lease, watchdog), +1 once, then block
 * </pre>
 */
public final class LockContender {
  private LockContender() {}

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    String redisUri = args[1];
    String mongoUri = args[2];
    String key = args[4];
    try (MongoClient mongo = MongoClients.create(mongoUri)) {
      MongoCollection<Document> docs = mongo.getDatabase(args[3]).getCollection("docs");
      if (mode.equals("contend")) {
        contend(docs, redisUri, key, args[5], Integer.parseInt(args[6]));
      } else {
        hold(docs, redisUri, key, args[5]);
      }
    }
  }

  private static void contend(MongoCollection<Document> docs, String redisUri, String key, String prefix, int count) {
    int acked = 0;
    int conflicts = 0;
    try (RedisLockService locks = RedisLockService.builder().uri(redisUri).keyPrefix(prefix).build()) {
      for (int i = 0; i < count; i++) {
        try (LockHandle handle = locks.acquire(key, Duration.ofSeconds(30))) {
          if (increment(docs, key)) {
            acked++;
          } else {
            conflicts++;
          }
        }
      }
    }
    System.out.println("ACKED " + acked + " CONFLICTS " + conflicts);
  }

  private static void hold(MongoCollection<Document> docs, String redisUri, String key, String prefix)
      throws InterruptedException {
    RedisLockService locks = RedisLockService.builder().uri(redisUri).keyPrefix(prefix)
        .lease(Duration.ofSeconds(1)).renewInterval(Duration.ofMillis(250)).build();
    LockHandle handle = locks.acquire(key, Duration.ofSeconds(30));
    if (!increment(docs, key)) {
      throw new IllegalStateException("version moved while holding the lock");
    }
    System.out.println("HELD " + handle.token());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE); // until killed
  }

  /** Read, add one, replace filtered on the version read; true if MongoDB acknowledged it. */
  static boolean increment(MongoCollection<Document> docs, String id) {
    Document doc = docs.find(eq("_id", id)).first();
    long version = doc.getLong("version");
    Document next = new Document("_id", id).append("version", version + 1)
        .append("counter", doc.getLong("counter") + 1);
    return docs.replaceOne(and(eq("_id", id), eq("version", version)), next).getMatchedCount() == 1;
  }
}
