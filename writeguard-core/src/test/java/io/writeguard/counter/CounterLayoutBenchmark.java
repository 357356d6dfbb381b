package io.writeguard.counter;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.writeguard.lock.LocalLockService;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * A measurement to run by hand, not part of the suite (the name does not match surefire's
 * test patterns), and it asserts nothing but exact totals:
 * {@code mvn -B -o -pl writeguard-core -am test -Dtest=CounterLayoutBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false [-Dbench.seconds=2 -Dbench.rounds=3]}.
 *
 * <p>Increments per second on one hot counter: a single document {@code $inc} (one shard),
 * ten shards as fields of one document (the seed's layout), ten shards as documents; at 16 and
 * 64 threads; plus a plain {@code updateOne} without upsert to show what the upsert costs;
 * median of interleaved rounds after a warm-up, with the ratio to the single document.
 * Runs against MONGODB_URI when set, else the embedded server.
 */
class CounterLayoutBenchmark {
  private static final double SECONDS = Double.parseDouble(System.getProperty("bench.seconds", "1.5"));
  private static final int ROUNDS = Integer.getInteger("bench.rounds", 3);

  /** {@code layout == null}: a plain {@code updateOne({_id}, {$inc})} on a pre-inserted document. */
  private record Config(String name, CounterLayout layout, int shards) {}

  private interface Target {
    void increment(String id);

    long total(String id);
  }

  private static Target target(Config config, MongoCollection<Document> collection) {
    if (config.layout() == null) {
      return new Target() {
        @Override
        public void increment(String id) {
          collection.updateOne(Filters.eq("_id", id), Updates.inc("n", 1L));
        }

        @Override
        public long total(String id) {
          Document doc = collection.find(Filters.eq("_id", id)).first();
          return doc == null ? 0 : doc.getLong("n");
        }
      };
    }
    ShardedCounter counter = ShardedCounter.builder(collection).layout(config.layout())
        .shards(config.shards()).lockService(LocalLockService.create()).build();
    return new Target() {
      @Override
      public void increment(String id) {
        counter.increment(id, 1);
      }

      @Override
      public long total(String id) {
        return counter.total(id);
      }
    };
  }

  @Test
  void incrementsPerSecond() throws Exception {
    List<Config> configs = List.of(
        new Config("single doc $inc", CounterLayout.FIELDS, 1),
        new Config("single doc, no upsert", null, 1),
        new Config("10 shards as fields", CounterLayout.FIELDS, 10),
        new Config("10 shards as documents", CounterLayout.DOCUMENTS, 10));
    System.out.printf("server: %s, %d cores, %s s x %d rounds (median)%n",
        TestMongo.isEmbedded() ? "embedded" : "MONGODB_URI",
        Runtime.getRuntime().availableProcessors(), SECONDS, ROUNDS);
    for (int threads : new int[] {16, 64}) {
      List<MongoCollection<Document>> collections = new ArrayList<>();
      List<Target> targets = new ArrayList<>();
      for (Config config : configs) {
        MongoCollection<Document> collection =
            TestMongo.freshDatabase("Bench").getCollection("counters");
        collections.add(collection);
        targets.add(target(config, collection));
        run(targets.get(targets.size() - 1), collection, threads, 1.0); // warm-up
      }
      // Rounds interleave the configurations, so load drift on a shared machine hits all alike.
      double[][] rates = new double[configs.size()][ROUNDS];
      for (int r = 0; r < ROUNDS; r++) {
        for (int c = 0; c < configs.size(); c++) {
          rates[c][r] = run(targets.get(c), collections.get(c), threads, SECONDS);
        }
      }
      double baseline = 0;
      for (int c = 0; c < configs.size(); c++) {
        Arrays.sort(rates[c]);
        double median = rates[c][ROUNDS / 2];
        if (c == 0) {
          baseline = median;
        }
        System.out.printf("threads %3d  %-24s %9.0f inc/s  (%.2fx single doc; rounds %s)%n",
            threads, configs.get(c).name(), median, median / baseline, Arrays.toString(
                Arrays.stream(rates[c]).mapToLong(Math::round).toArray()));
      }
      for (MongoCollection<Document> collection : collections) {
        TestMongo.client().getDatabase(collection.getNamespace().getDatabaseName()).drop();
      }
    }
  }

  /** Runs increments for {@code seconds}; returns increments/s, after checking the total. */
  private static double run(Target counter, MongoCollection<Document> collection, int threads,
      double seconds) throws Exception {
    String id = "hot-" + System.nanoTime();
    collection.insertOne(new Document("_id", id).append("n", 0L));
    LongAdder done = new LongAdder();
    AtomicBoolean running = new AtomicBoolean(true);
    CountDownLatch ready = new CountDownLatch(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      futures.add(pool.submit(() -> {
        ready.countDown();
        ready.await();
        while (running.get()) {
          counter.increment(id);
          done.increment();
        }
        return null;
      }));
    }
    ready.await();
    long start = System.nanoTime();
    Thread.sleep(Duration.ofMillis((long) (seconds * 1000)).toMillis());
    running.set(false);
    for (Future<?> f : futures) {
      f.get(30, TimeUnit.SECONDS);
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    pool.shutdown();
    if (counter.total(id) != done.sum()) {
      throw new AssertionError("lost increments: acknowledged " + done.sum() + ", total "
          + counter.total(id));
    }
    return done.sum() / elapsed;
  }
}
