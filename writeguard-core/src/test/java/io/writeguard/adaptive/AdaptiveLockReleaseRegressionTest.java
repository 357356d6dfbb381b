package io.writeguard.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.writeguard.testing.FakeTime;
import io.writeguard.testing.ReleaseFailingLocks;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.Mutation;
import io.writeguard.update.UpdateOutcome;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Bug: a locked update ran in a try-with-resources on its lock, so when the lock's release
 * failed after the versioned write was applied, the caller got a
 * {@link io.writeguard.lock.LockBackendException} for an update that happened, and a caller
 * retrying it applied the mutation twice (n = 2 for one increment).
 */
class AdaptiveLockReleaseRegressionTest {
  private final MongoCollection<Document> docs =
      TestMongo.freshDatabase("AdaptiveRelease").getCollection("docs");

  @Test
  void aLockReleaseFailureAfterALockedUpdateDoesNotReportTheUpdateAsFailed() {
    docs.insertOne(new Document("_id", "hot").append("version", 0L).append("n", 0L));
    FakeTime time = new FakeTime(); // never advances: once locked, the key stays locked
    ReleaseFailingLocks locks = new ReleaseFailingLocks();
    AdaptiveUpdater updater = AdaptiveUpdater.builder(VersionedUpdater.builder(docs).build(), locks)
        .policy(AdaptivePolicy.builder().minAttempts(1).threshold(0.0).build())
        .lockWait(Duration.ofSeconds(30))
        .ticker(time.ticker())
        .build();
    // One conflict (a competing write inside the first mutator call) locks the key.
    AtomicBoolean competed = new AtomicBoolean();
    updater.update("hot", current -> {
      if (competed.compareAndSet(false, true)) {
        docs.updateOne(Filters.eq("_id", "hot"), Updates.inc("version", 1L));
      }
      return Mutation.update(Updates.set("tag", "x"));
    });
    assertThat(updater.routeOf("hot")).isEqualTo(Route.LOCKED);

    UpdateOutcome outcome = updater.update("hot", current ->
        Mutation.update(Updates.set("n", current.get("n", Number.class).longValue() + 1)));

    assertThat(locks.releases()).isEqualTo(1);
    assertThat(outcome.document()).isPresent();
    assertThat(docs.find(Filters.eq("_id", "hot")).first().get("n", Number.class).longValue())
        .isEqualTo(1);
  }
}
