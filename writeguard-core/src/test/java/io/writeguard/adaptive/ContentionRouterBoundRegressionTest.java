package io.writeguard.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.lock.LocalLockService;
import io.writeguard.testing.Concurrently;
import io.writeguard.testing.FakeTime;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.Mutation;
import io.writeguard.update.RetryPolicy;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Issue 8 §4: keys that went LOCKED and were never touched again were never trimmed, so a churn
 * of distinct hot keys grew the router without bound (10,000 tracked with maxTrackedKeys(100)).
 */
class ContentionRouterBoundRegressionTest {
  private final FakeTime time = new FakeTime();
  private final AdaptivePolicy policy = AdaptivePolicy.builder()
      .minAttempts(10)
      .lockedTime(Duration.ofSeconds(1), Duration.ofSeconds(4))
      .maxTrackedKeys(100)
      .build();
  private final ContentionRouter router = new ContentionRouter(policy, time.ticker());

  private void makeHot(String key) {
    for (int i = 0; i < 10; i++) {
      router.recordOptimistic(key, 3);
    }
  }

  @Test
  void aChurnOfLockedKeysNeverTouchedAgainStaysBounded() {
    for (int i = 0; i < 10_000; i++) {
      makeHot("doc-" + i);
      assertThat(router.route("doc-" + i)).isEqualTo(Route.LOCKED);
    }
    assertThat(router.trackedKeys()).isLessThanOrEqualTo(100);
  }

  @Test
  void aChurnOfLockedUpdatesOfDistinctKeysStaysBounded() {
    for (int i = 0; i < 10_000; i++) {
      router.lockedStarted("doc-" + i);
      router.lockedDone("doc-" + i);
    }
    assertThat(router.trackedKeys()).isLessThanOrEqualTo(100);
  }

  @Test
  void aLockedUpdateInFlightKeepsItsKeyThroughAChurn() {
    makeHot("busy");
    router.lockedStarted("busy");
    for (int i = 0; i < 10_000; i++) {
      makeHot("doc-" + i);
    }
    assertThat(router.route("busy")).isEqualTo(Route.LOCKED);
    router.lockedStarted("busy"); // a second update while the first is in flight: contention
    router.lockedDone("busy");
    router.lockedDone("busy");
    assertThat(router.trackedKeys()).isLessThanOrEqualTo(101);
  }

  /**
   * The adaptive guarantee when hot keys are trimmed while hot: with room for one key, six hot
   * documents keep evicting each other, so each flips between LOCKED and OPTIMISTIC while
   * updates of both routes of the same document run at once. Both routes run the same
   * versioned update, so the totals stay exact.
   */
  @Test
  void hotKeysEvictingEachOtherLoseNoUpdate() throws Exception {
    MongoCollection<Document> docs =
        TestMongo.freshDatabase("AdaptiveChurn").getCollection("docs");
    int documents = 6;
    for (int d = 0; d < documents; d++) {
      docs.insertOne(new Document("_id", "d" + d).append("version", 0L).append("n", 0L));
    }
    VersionedUpdater updater = VersionedUpdater.builder(docs)
        .retryPolicy(RetryPolicy.builder().maxAttempts(100_000).deadline(Duration.ofSeconds(90))
            .build())
        .build();
    AdaptiveUpdater adaptive = AdaptiveUpdater.builder(updater, LocalLockService.create())
        .policy(AdaptivePolicy.builder().minAttempts(4).threshold(0.05).maxTrackedKeys(1)
            .build())
        .lockWait(Duration.ofSeconds(60))
        .build();
    int threads = 12;
    int perThread = 30;
    Concurrently.run(threads, Duration.ofSeconds(120), thread -> {
      for (int i = 0; i < perThread; i++) {
        adaptive.update("d" + ((thread + i) % documents), current -> Mutation.update(
            Updates.set("n", current.getLong("n") + 1)));
      }
    });
    long total = 0;
    for (Document d : docs.find()) {
      total += d.getLong("n");
    }
    assertThat(total).isEqualTo((long) threads * perThread);
  }
}
