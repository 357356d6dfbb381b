package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real concurrent read-modify-write on one hot document: every thread reads {@code count},
 * writes {@code count + 1} computed in Java, and appends its own token. Without the version
 * compare most of these would be lost; with it the totals are exact.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class VersionedUpdaterConcurrencyTest {
  private static final int THREADS = 16;
  private static final int PER_THREAD = 15;

  private final LongAdder conflicts = new LongAdder();
  private final LongAdder tornReads = new LongAdder();
  private final WriteGuardListener counting = new WriteGuardListener() {
    @Override
    public void onConflict(OperationScope scope, Object key, int attempt) {
      conflicts.increment();
    }
  };

  /** Group commit off: these tests are about the compare-and-set retry loop itself. */
  private VersionedUpdater updater(MongoCollection<Document> docs) {
    return VersionedUpdater.builder(docs)
        .groupCommit(false)
        .listener(counting)
        .retryPolicy(RetryPolicy.builder()
            .maxAttempts(10_000)
            .deadline(Duration.ofSeconds(60))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(20))
            .build())
        .build();
  }

  /** Runs {@code op(thread, i)} PER_THREAD times on each of THREADS threads, all at once. */
  private void hammer(Op op) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<Void>> futures = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        Callable<Void> worker = () -> {
          start.await();
          for (int i = 0; i < PER_THREAD; i++) {
            op.run(thread, i);
          }
          return null;
        };
        futures.add(pool.submit(worker));
      }
      start.countDown();
      for (Future<Void> f : futures) {
        f.get(80, TimeUnit.SECONDS); // rethrows any failure
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private interface Op {
    void run(int thread, int i) throws Exception;
  }

  private void assertExact(MongoCollection<Document> docs, String id) {
    int total = THREADS * PER_THREAD;
    Document stored = docs.find(eq("_id", id)).first();
    assertThat(stored.getInteger("count"))
        .as("count after %d acknowledged updates; mutators saw %d torn reads (a server that"
            + " returns half-written documents loses updates whatever the client does)",
            total, tornReads.sum())
        .isEqualTo(total);
    assertThat(stored.getLong("version")).isEqualTo(total);
    List<String> log = stored.getList("log", String.class);
    assertThat(log).hasSize(total);
    assertThat(new HashSet<>(log)).hasSize(total);
  }

  @Test
  void concurrentReadModifyWriteUpdatesLoseNothing() throws Exception {
    MongoCollection<Document> docs = TestMongo.freshDatabase("Concurrency").getCollection("d");
    VersionedInsert.insertOne(docs, VersionPolicy.defaults(),
        new Document("_id", "hot").append("count", 0).append("log", List.of()));
    VersionedUpdater updater = updater(docs);
    hammer((thread, i) -> updater.update("hot", current -> Mutation.update(Updates.combine(
        Updates.set("count", countOf(current) + 1),
        Updates.push("log", thread + "-" + i)))));
    assertExact(docs, "hot");
    assertThat(conflicts.sum()).as("the test must actually contend").isPositive();
  }

  /**
   * The count read, noting reads that are not a state any write left behind (every write
   * moves count, version and log together), so a failure can say whether the server tore
   * its reads.
   */
  private int countOf(Document current) {
    int count = current.getInteger("count");
    long version = current.get("version") == null ? 0 : current.getLong("version");
    if (count != version || count != current.getList("log", String.class).size()) {
      tornReads.increment();
    }
    return count;
  }

  @Test
  void concurrentReplacementsViaUpdateOneLoseNothing() throws Exception {
    MongoCollection<Document> docs = TestMongo.freshDatabase("Concurrency").getCollection("d");
    VersionedInsert.insertOne(docs, VersionPolicy.defaults(),
        new Document("_id", "hot").append("count", 0).append("log", List.of()));
    VersionedUpdater updater = updater(docs);
    hammer((thread, i) -> updater.updateOne("hot", current -> {
      current.put("count", countOf(current) + 1);
      List<String> log = new ArrayList<>(current.getList("log", String.class));
      log.add(thread + "-" + i);
      current.put("log", log);
      return Mutation.replace(current);
    }));
    assertExact(docs, "hot");
    assertThat(conflicts.sum()).as("the test must actually contend").isPositive();
  }

  @Test
  void concurrentAdoptionOfALegacyDocumentLosesNothing() throws Exception {
    MongoCollection<Document> docs = TestMongo.freshDatabase("Concurrency").getCollection("d");
    docs.insertOne(new Document("_id", "old").append("count", 0).append("log", List.of()));
    VersionedUpdater updater = updater(docs);
    hammer((thread, i) -> updater.update("old", current -> Mutation.update(Updates.combine(
        Updates.set("count", countOf(current) + 1),
        Updates.push("log", thread + "-" + i)))));
    assertExact(docs, "old");
  }
}
