package io.writeguard.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.lock.LocalLockService;
import io.writeguard.testing.Concurrently;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.Mutation;
import io.writeguard.update.RetryPolicy;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.junit.jupiter.api.Test;

class AdaptiveUpdaterTest {
  private final MongoCollection<Document> docs = TestMongo.freshDatabase("Adaptive").getCollection("docs");

  /**
   * The updater's own group commit is off so that the hot document does conflict and moves to
   * the locked route, where the adaptive updater's group commit combines under the lock.
   */
  private AdaptiveUpdater adaptive(LocalLockService locks) {
    VersionedUpdater updater = VersionedUpdater.builder(docs)
        .groupCommit(false)
        .strategyName("adaptive")
        .retryPolicy(RetryPolicy.builder().maxAttempts(1_000).deadline(Duration.ofSeconds(60)).build())
        .build();
    return AdaptiveUpdater.builder(updater, locks)
        .policy(AdaptivePolicy.builder().minAttempts(10).build())
        .lockWait(Duration.ofSeconds(30))
        .build();
  }

  /** Read-change-write increments of a field, so a lost update would show in the total. */
  private static Mutation increment(Document current) {
    long n = current.get("n", Number.class).longValue();
    return Mutation.update(Updates.set("n", n + 1));
  }

  @Test
  void aHotDocumentIsLockedAndLosesNothingWhileAQuietOneStaysOptimistic() throws Exception {
    docs.insertOne(new Document("_id", "hot").append("version", 0L).append("n", 0L));
    docs.insertOne(new Document("_id", "quiet").append("version", 0L).append("n", 0L));
    AdaptiveUpdater updater = adaptive(LocalLockService.create());
    int threads = 16;
    int perThread = 40;
    java.util.Set<Route> routes = ConcurrentHashMap.newKeySet();
    Concurrently.run(threads, Duration.ofSeconds(120), thread -> {
      for (int i = 0; i < perThread; i++) {
        updater.update("hot", AdaptiveUpdaterTest::increment);
        routes.add(updater.routeOf("hot"));
      }
    }, () -> {
      for (int i = 0; i < 50; i++) {
        updater.update("quiet", AdaptiveUpdaterTest::increment);
      }
    });
    assertThat(docs.find(new Document("_id", "hot")).first().get("n", Number.class).longValue())
        .isEqualTo((long) threads * perThread);
    assertThat(docs.find(new Document("_id", "quiet")).first().get("n", Number.class).longValue())
        .isEqualTo(50);
    assertThat(routes).contains(Route.LOCKED);
    assertThat(updater.routeOf("quiet")).isEqualTo(Route.OPTIMISTIC);
  }

  @Test
  void updateOneTakesBothRoutesLosesNothingAndReturnsNoDocument() throws Exception {
    docs.insertOne(new Document("_id", "hot1").append("version", 0L).append("n", 0L));
    AdaptiveUpdater updater = adaptive(LocalLockService.create());
    java.util.Set<Route> routes = ConcurrentHashMap.newKeySet();
    Concurrently.run(16, Duration.ofSeconds(120), thread -> {
      for (int i = 0; i < 30; i++) {
        assertThat(updater.updateOne("hot1", AdaptiveUpdaterTest::increment).document()).isEmpty();
        routes.add(updater.routeOf("hot1"));
      }
    });
    Document hot = docs.find(new Document("_id", "hot1")).first();
    assertThat(hot.get("n", Number.class).longValue()).isEqualTo(480);
    assertThat(hot.getLong("version")).isEqualTo(480);
    assertThat(routes).contains(Route.LOCKED);
  }

  @Test
  void twoProcessesWithSeparateInProcessLocksStillLoseNothing() throws Exception {
    // Each "process" has its own in-process lock service, so the lock does not exclude the
    // other one: only the version in the filter does.
    docs.insertOne(new Document("_id", "shared").append("version", 0L).append("n", 0L));
    AdaptiveUpdater a = adaptive(LocalLockService.create());
    AdaptiveUpdater b = adaptive(LocalLockService.create());
    AtomicLong acknowledged = new AtomicLong();
    Concurrently.run(12, Duration.ofSeconds(120), thread -> {
      AdaptiveUpdater u = thread % 2 == 0 ? a : b;
      for (int i = 0; i < 30; i++) {
        u.update("shared", AdaptiveUpdaterTest::increment);
        acknowledged.incrementAndGet();
      }
    });
    assertThat(docs.find(new Document("_id", "shared")).first().get("n", Number.class).longValue())
        .isEqualTo(acknowledged.get())
        .isEqualTo(360);
  }
}
