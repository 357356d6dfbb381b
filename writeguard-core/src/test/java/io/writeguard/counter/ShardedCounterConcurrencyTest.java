package io.writeguard.counter;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.writeguard.lock.LocalLockService;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Real concurrent increments and decrements on every layout: the final total equals the sum of
 * acknowledged operations, and readers polling during the run never see a negative shard or
 * total. Decrements are sized so many need several shards, which races the combine path
 * against single-shard decrements.
 */
class ShardedCounterConcurrencyTest {
  private static final int WRITERS = 8;
  private static final int OPS_PER_WRITER = 150;

  @ParameterizedTest
  @EnumSource(CounterLayout.class)
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void totalEqualsAcknowledgedOperationsAndNeverGoesNegative(CounterLayout layout)
      throws Exception {
    MongoCollection<Document> collection =
        TestMongo.freshDatabase("CounterStress").getCollection("counters");
    ShardedCounter counter = ShardedCounter.builder(collection).layout(layout).shards(10)
        .lockService(LocalLockService.create()).lockWaitTimeout(Duration.ofSeconds(20))
        .build();
    AtomicLong acknowledged = new AtomicLong();
    AtomicLong combined = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    AtomicLong lowestSeen = new AtomicLong(Long.MAX_VALUE);
    AtomicLong reads = new AtomicLong();
    AtomicBoolean running = new AtomicBoolean(true);

    ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 1);
    Future<?> reader = pool.submit(() -> {
      while (running.get()) {
        List<Long> shards = counter.shardValues("hot");
        long total = shards.stream().mapToLong(Long::longValue).sum();
        long min = Math.min(total, shards.stream().mapToLong(Long::longValue).min().orElse(0));
        lowestSeen.accumulateAndGet(min, Math::min);
        reads.incrementAndGet();
      }
    });
    List<Future<?>> writers = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      writers.add(pool.submit(() -> {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < OPS_PER_WRITER; i++) {
          if (random.nextBoolean()) {
            long amount = 1 + random.nextInt(10);
            counter.increment("hot", amount);
            acknowledged.addAndGet(amount);
          } else {
            long amount = 1 + random.nextInt(30);
            try {
              DecrementResult result = counter.decrement("hot", amount);
              acknowledged.addAndGet(-result.amount());
              if (result.combined()) {
                combined.incrementAndGet();
              }
            } catch (InsufficientBalanceException e) {
              refused.incrementAndGet();
            }
          }
        }
        return null;
      }));
    }
    for (Future<?> writer : writers) {
      writer.get(50, TimeUnit.SECONDS);
    }
    running.set(false);
    reader.get(5, TimeUnit.SECONDS);
    pool.shutdown();

    System.out.printf("%s: total %d, combined %d, refused %d, reads %d%n", layout,
        counter.total("hot"), combined.get(), refused.get(), reads.get());
    assertThat(counter.total("hot")).isEqualTo(acknowledged.get());
    assertThat(counter.shardValues("hot")).allMatch(v -> v >= 0);
    assertThat(lowestSeen.get()).isGreaterThanOrEqualTo(0);
    assertThat(reads.get()).isPositive();
  }
}
