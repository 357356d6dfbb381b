package io.writeguard.redis;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A throughput check to run by hand, not a benchmark with asserted timings: 64 threads take
 * one key's lock and run a critical section, under a JDK lock, {@link LocalLockService} and
 * {@link RedisLockService}, in alternating rounds; prints ops/s per round and the median ratio.
 * Totals are asserted exactly (every operation is visible), speeds only printed.
 *
 * <pre>
 * mvn -B -q -o -pl writeguard-redis -am verify -Dtest=RedisLockThroughputCheck \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dwriteguard.bench=true
 * </pre>
 */
@EnabledIfSystemProperty(named = "writeguard.bench", matches = "true", disabledReason = "run by hand: -Dwriteguard.bench=true")
class RedisLockThroughputCheck {
  private static final int THREADS = Integer.getInteger("writeguard.bench.threads", 64);
  private static final Duration ROUND = Duration.ofSeconds(3);
  private static final int ROUNDS = 3;

  /** The work done under the lock; returns nothing, must be exclusive to stay exact. */
  interface Section {
    void run() throws Exception;

    long total();
  }

  /** Runs {@code section} under {@code lock} from many threads for one round; ops/s. */
  interface Locker {
    AutoCloseable lock() throws Exception;
  }

  @Test
  void tinyCriticalSection() throws Exception {
    long[] counter = {0};
    compare("tiny section (read, yield, write a field)", () -> new Section() {
      @Override
      public void run() {
        long read = counter[0];
        Thread.yield();
        counter[0] = read + 1;
      }

      @Override
      public long total() {
        return counter[0];
      }
    });
  }

  @Test
  void readModifyReplaceOfOneMongoDocument() throws Exception {
    MongoCollection<Document> docs = TestMongo.freshDatabase("RedisBench").getCollection("docs");
    docs.insertOne(new Document("_id", "hot").append("version", 0L).append("counter", 0L));
    compare("read-modify-replace of one MongoDB document", () -> new Section() {
      @Override
      public void run() {
        Document doc = docs.find(eq("_id", "hot")).first();
        long version = doc.getLong("version");
        Document next = new Document("_id", "hot").append("version", version + 1)
            .append("counter", doc.getLong("counter") + 1);
        if (docs.replaceOne(and(eq("_id", "hot"), eq("version", version)), next).getMatchedCount() != 1) {
          throw new IllegalStateException("version moved under the lock: exclusion broken");
        }
      }

      @Override
      public long total() {
        return docs.find(eq("_id", "hot")).first().getLong("counter");
      }
    });
  }

  private void compare(String title, java.util.function.Supplier<Section> sections) throws Exception {
    Section section = sections.get();
    ReentrantLock jdk = new ReentrantLock();
    LockService local = LocalLockService.create();
    RedisLockService redis = RedisLockService.builder().uri(TestRedis.uri()).keyPrefix("wgbench:").build();
    String key = "hot-" + System.nanoTime();
    List<String> names = List.of("jdk-lock", "local-lock", "redis-lock");
    List<Locker> lockers = List.of(
        () -> {
          jdk.lock();
          return jdk::unlock;
        },
        () -> local.acquire(key, Duration.ofSeconds(30)),
        () -> redis.acquire(key, Duration.ofSeconds(30)));
    double[][] rates = new double[names.size()][ROUNDS];
    long done = 0;
    try {
      for (int i = 0; i < names.size(); i++) {
        done += round(lockers.get(i), section, Duration.ofSeconds(1)); // warm-up
      }
      for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < names.size(); i++) {
          long ops = round(lockers.get(i), section, ROUND);
          done += ops;
          rates[i][r] = ops / (ROUND.toNanos() / 1e9);
        }
      }
    } finally {
      redis.close();
    }
    assertThat(section.total()).as("every operation visible").isEqualTo(done);
    System.out.printf("%n%s, %d threads, %d rounds of %ds:%n", title, THREADS, ROUNDS, ROUND.toSeconds());
    double base = median(rates[0]);
    for (int i = 0; i < names.size(); i++) {
      System.out.printf("  %-11s median %8.0f ops/s  (%.2fx jdk-lock)  rounds %s%n",
          names.get(i), median(rates[i]), median(rates[i]) / base, Arrays.toString(round0(rates[i])));
    }
  }

  private static long round(Locker locker, Section section, Duration length) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    LongAdder ops = new LongAdder();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < THREADS; t++) {
      Thread thread = new Thread(() -> {
        try {
          start.await();
          while (!stop.get()) {
            try (AutoCloseable held = locker.lock()) {
              section.run();
            }
            ops.increment();
          }
        } catch (Throwable e) {
          errors.add(e);
        }
      });
      thread.start();
      threads.add(thread);
    }
    start.countDown();
    Thread.sleep(length.toMillis());
    stop.set(true);
    for (Thread thread : threads) {
      thread.join(60_000);
    }
    assertThat(errors).isEmpty();
    return ops.sum();
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static long[] round0(double[] values) {
    return Arrays.stream(values).mapToLong(Math::round).toArray();
  }
}
