package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.atomic.AtomicUpdates;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.FakeTime;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Contention pacing in group commit, on a real server: a batch that keeps losing to another
 * writer keeps its attempts, and two updaters with combiners of their own on one document (two
 * "processes") finish every update with the default settings, none lost and none given up.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PacedGroupCommitTest {
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("PacedGroupCommit").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private void insert(String id) {
    VersionedInsert.insertOne(real, VersionPolicy.defaults(),
        new Document("_id", id).append("n", 0L).append("log", List.of()));
  }

  private static Mutation increment(Document current, String mark) {
    return Mutation.update(Updates.combine(
        Updates.set("n", current.getLong("n") + 1), Updates.push("log", mark)));
  }

  private Document stored(String id) {
    return real.find(eq("_id", id)).first();
  }

  @Test
  void aBatchBeatenByAnotherWriterKeepsItsAttempts() throws Exception {
    insert("beaten");
    FakeTime time = new FakeTime();
    VersionedUpdater updater = VersionedUpdater.builder(real)
        .ticker(time.ticker())
        .sleeper(time.sleeper())
        .retryPolicy(RetryPolicy.builder().maxAttempts(2).build())
        .build();
    AtomicUpdates.Versioned atomic = AtomicUpdates.versioned(VersionPolicy.defaults());
    AtomicInteger competitors = new AtomicInteger();
    HeldBatch held = new HeldBatch(pool, updater, "beaten", current -> increment(current, "first"));
    Mutator beatenFiveTimes = current -> { // another writer's write after each of 5 reads
      if (competitors.get() < 5) {
        competitors.incrementAndGet();
        real.updateOne(eq("_id", "beaten"), atomic.raising(Updates.inc("other", 1L)));
      }
      return increment(current, "b");
    };
    Future<UpdateOutcome> b = held.queue(beatenFiveTimes);
    Future<UpdateOutcome> c = held.queue(current -> increment(current, "c"));
    held.release();
    assertThat(b.get(60, TimeUnit.SECONDS).attempts()).isEqualTo(6);
    assertThat(c.get(60, TimeUnit.SECONDS).attempts()).isEqualTo(6);
    Document doc = stored("beaten");
    assertThat(doc.getLong("n")).isEqualTo(3);
    assertThat(doc.getList("log", String.class)).containsExactly("first", "b", "c");
    assertThat(doc.getLong("other")).isEqualTo(5);
  }

  @Test
  void twoUpdatersOnOneDocumentFinishEveryUpdateWithTheDefaults() throws Exception {
    twoUpdaters(RetryPolicy.defaults());
  }

  /**
   * One attempt each: every conflict between the two updaters is a round lost to the other's
   * write, which is not charged, so none gives up (blind, the first conflict would end a call).
   */
  @Test
  void twoUpdatersFinishEveryUpdateEvenWithOneAttemptEach() throws Exception {
    twoUpdaters(RetryPolicy.builder().maxAttempts(1).build());
  }

  private void twoUpdaters(RetryPolicy retry) throws Exception {
    insert("hot");
    LongAdder conflicts = new LongAdder();
    LongAdder exhausted = new LongAdder();
    WriteGuardListener counting = new WriteGuardListener() {
      @Override
      public void onConflict(OperationScope scope, Object key, int attempt) {
        conflicts.increment();
      }

      @Override
      public void onExhausted(OperationScope scope, Object key, int attempts, Duration elapsed) {
        exhausted.increment();
      }
    };
    // Two "processes": each updater has its own group-commit queue, so their batch leaders
    // race on the version like those of two instances of a service.
    List<VersionedUpdater> processes = List.of(
        VersionedUpdater.builder(real).listener(counting).retryPolicy(retry).build(),
        VersionedUpdater.builder(real).listener(counting).retryPolicy(retry).build());
    int threadsEach = 8;
    int updatesEach = 40;
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Integer>> workers = new ArrayList<>();
    for (int p = 0; p < processes.size(); p++) {
      VersionedUpdater updater = processes.get(p);
      for (int t = 0; t < threadsEach; t++) {
        String thread = p + "-" + t;
        workers.add(pool.submit(() -> {
          start.await();
          int failed = 0;
          for (int i = 0; i < updatesEach; i++) {
            String mark = thread + "-" + i;
            try {
              updater.updateOne("hot", current -> increment(current, mark));
            } catch (RetriesExhaustedException e) {
              failed++;
            }
          }
          return failed;
        }));
      }
    }
    start.countDown();
    int failed = 0;
    for (Future<Integer> w : workers) {
      failed += w.get(100, TimeUnit.SECONDS);
    }
    int total = processes.size() * threadsEach * updatesEach;
    assertThat(failed).as("calls that gave up").isZero();
    assertThat(exhausted.sum()).isZero();
    Document doc = stored("hot");
    assertThat(doc.getLong("n")).isEqualTo(total);
    List<String> log = doc.getList("log", String.class);
    assertThat(log).hasSize(total);
    assertThat(new HashSet<>(log)).hasSize(total);
    assertThat(conflicts.sum()).as("the two updaters must actually contend").isPositive();
  }
}
