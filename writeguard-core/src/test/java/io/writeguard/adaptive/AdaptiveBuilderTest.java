package io.writeguard.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.testing.FakeTime;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedTesting;
import io.writeguard.update.Mutation;
import io.writeguard.update.Mutator;
import io.writeguard.update.UpdateOutcome;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The adaptive builder's locked-route settings (lock wait, lock prefix, group commit and its
 * bound) reach the locked route: seen at the lock service, on a key the router keeps locked.
 */
class AdaptiveBuilderTest {
  private static final long BOUND_SECONDS = 60;
  private final MongoCollection<Document> docs =
      TestMongo.freshDatabase("AdaptiveBuilder").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final FakeTime routerTime = new FakeTime(); // never advances: a hot key stays locked
  private final RecordingLocks locks = new RecordingLocks(LocalLockService.create());

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  /** An adaptive updater whose key "d" is on the locked route (one conflict made it hot). */
  private AdaptiveUpdater hot(UnaryOperator<AdaptiveUpdater.Builder> settings) {
    docs.insertOne(new Document("_id", "d").append("version", 0L).append("n", 0));
    AdaptiveUpdater updater = settings.apply(AdaptiveUpdater
            .builder(VersionedUpdater.builder(docs).build(), locks)
            .policy(AdaptivePolicy.builder().minAttempts(1).threshold(0.0).build())
            .ticker(routerTime.ticker()))
        .build();
    AtomicBoolean competed = new AtomicBoolean();
    updater.update("d", current -> {
      if (competed.compareAndSet(false, true)) {
        docs.updateOne(Filters.eq("_id", "d"), Updates.inc("version", 1L));
      }
      return increment(current);
    });
    assertThat(updater.routeOf("d")).isEqualTo(Route.LOCKED);
    locks.acquires.clear();
    return updater;
  }

  private static Mutation increment(Document current) {
    return Mutation.update(Updates.inc("n", 1));
  }

  @Test
  void theLockWaitAndPrefixReachTheLockedRoute() {
    AdaptiveUpdater updater = hot(b -> b.lockWait(Duration.ofSeconds(7)).lockPrefix("p/"));
    updater.update("d", AdaptiveBuilderTest::increment);
    assertThat(locks.acquires).containsExactly("p/d PT7S");
  }

  @Test
  void byDefaultTheLockKeyIsTheCollectionNameAndTheWaitFiveSeconds() {
    AdaptiveUpdater updater = hot(b -> b);
    updater.update("d", AdaptiveBuilderTest::increment);
    assertThat(locks.acquires).containsExactly("docs:d PT5S");
  }

  /**
   * One update holds the lock inside its mutator while two more arrive: with group commit they
   * queue and run as one batch under one more lock hold, unless the bound is 1; without it each
   * takes the lock for itself.
   */
  @ParameterizedTest(name = "groupCommit={0} maxBatchSize={1}")
  @CsvSource({"true, 256, 2", "true, 1, 3", "false, 256, 3"})
  void groupCommitAndItsBoundReachTheLockedRoute(boolean groupCommit, int maxBatchSize,
      int lockHolds) throws Exception {
    AdaptiveUpdater updater = hot(b -> b.lockWait(Duration.ofSeconds(BOUND_SECONDS))
        .groupCommit(groupCommit).maxBatchSize(maxBatchSize));
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<Future<UpdateOutcome>> calls = new ArrayList<>();
    calls.add(submit(updater, current -> {
      inside.countDown();
      LockedTesting.await(release);
      return increment(current);
    }));
    LockedTesting.await(inside);
    calls.add(submit(updater, AdaptiveBuilderTest::increment));
    calls.add(submit(updater, AdaptiveBuilderTest::increment));
    // Queued for the next batch (group commit) or waiting at the lock (without).
    LockedTesting.waitUntil(() -> updater.waiting("d") + locks.acquires.size() == 3);
    release.countDown();
    for (Future<UpdateOutcome> call : calls) {
      call.get(BOUND_SECONDS, TimeUnit.SECONDS);
    }
    assertThat(locks.acquires).hasSize(lockHolds);
    assertThat(docs.find(Filters.eq("_id", "d")).first().getInteger("n")).isEqualTo(4);
  }

  private Future<UpdateOutcome> submit(AdaptiveUpdater updater, Mutator mutator) {
    return pool.submit(() -> updater.update("d", mutator));
  }

  /** A lock service that records each acquire's key and wait as it starts. */
  private static final class RecordingLocks implements LockService {
    final List<String> acquires = new CopyOnWriteArrayList<>();
    private final LockService target;

    RecordingLocks(LockService target) {
      this.target = target;
    }

    @Override
    public LockHandle acquire(String key, Duration waitTimeout) {
      acquires.add(key + " " + waitTimeout);
      return target.acquire(key, waitTimeout);
    }

    @Override
    public Optional<LockHandle> tryAcquire(String key) {
      return target.tryAcquire(key);
    }

    @Override
    public String backend() {
      return target.backend();
    }
  }
}
