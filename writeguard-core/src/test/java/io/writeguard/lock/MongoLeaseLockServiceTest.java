package io.writeguard.lock;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.set;

import com.mongodb.client.MongoCollection;
import io.writeguard.testing.TestMongo;
import org.bson.Document;

/** The lock contract, run against the MongoDB lease lock. */
class MongoLeaseLockServiceTest extends LockServiceContract {
  private final MongoCollection<Document> locks =
      TestMongo.freshDatabase("MongoLeaseContract").getCollection("locks");

  @Override
  protected LockService create(LeaseConfig config) {
    MongoLeaseLockService.Builder builder = MongoLeaseLockService.builder(locks)
        .lease(config.lease())
        .listener(config.listener())
        .ticker(config.ticker());
    if (config.renewInterval() == null) {
      builder.noRenewal();
    } else {
      builder.renewInterval(config.renewInterval());
    }
    return builder.build();
  }

  /** Another owner overwrites the lock document with a higher token, as a takeover would. */
  @Override
  protected void simulateTakeover(String key) {
    long matched = locks.updateOne(eq("_id", key),
        combine(set("owner", "intruder"), inc("token", 1000L), currentDate("renewedAt")))
        .getMatchedCount();
    if (matched != 1) {
      throw new IllegalStateException("no lock document for " + key);
    }
  }
}
