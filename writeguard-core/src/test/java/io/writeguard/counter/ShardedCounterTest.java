package io.writeguard.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ShardedCounterTest {
  private final AtomicInteger lockAcquisitions = new AtomicInteger();
  private final LocalLockService locks = LocalLockService.builder()
      .listener(new WriteGuardListener() {
        @Override
        public void onLockWait(String backend, String key, Duration waited, boolean acquired) {
          if (acquired) {
            lockAcquisitions.incrementAndGet();
          }
        }
      })
      .build();
  private final MongoCollection<Document> collection =
      TestMongo.freshDatabase("Counter").getCollection("counters");

  private ShardedCounter counter(CounterLayout layout, int shards) {
    return ShardedCounter.builder(collection).layout(layout).shards(shards).lockService(locks)
        .lockWaitTimeout(Duration.ofMillis(300)).build();
  }

  /** Puts exact values into shards through the documented storage shape. */
  private void seed(CounterLayout layout, String id, long... values) {
    if (layout == CounterLayout.FIELDS) {
      Document doc = new Document("_id", id);
      for (int i = 0; i < values.length; i++) {
        doc.append("balance_shard_" + i, values[i]);
      }
      collection.insertOne(doc);
    } else {
      for (int i = 0; i < values.length; i++) {
        collection.insertOne(new Document("_id", id + "#" + i).append("counter", id)
            .append("shard", i).append("balance", values[i]));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(CounterLayout.class)
  void incrementsSpreadOverShardsAndSumUp(CounterLayout layout) {
    ShardedCounter counter = counter(layout, 10);
    for (int i = 1; i <= 200; i++) {
      counter.increment("hits", i);
    }
    assertThat(counter.total("hits")).isEqualTo(200L * 201 / 2);
    assertThat(counter.shardValues("hits")).hasSize(10)
        .filteredOn(v -> v > 0).hasSizeGreaterThan(1);
    assertThat(counter.total("never-touched")).isZero();
  }

  @ParameterizedTest
  @EnumSource(CounterLayout.class)
  void decrementWithinOneShardTouchesOneShard(CounterLayout layout) {
    seed(layout, "c", 50, 50, 50);
    DecrementResult result = counter(layout, 3).decrement("c", 20);
    assertThat(result).isEqualTo(new DecrementResult(20, 1, false));
    assertThat(counter(layout, 3).total("c")).isEqualTo(130);
    assertThat(lockAcquisitions).hasValue(0);
  }

  @ParameterizedTest
  @EnumSource(CounterLayout.class)
  void decrementLargerThanEveryShardCombinesShards(CounterLayout layout) {
    seed(layout, "c", 3, 4, 5);
    ShardedCounter counter = counter(layout, 3);

    DecrementResult result = counter.decrement("c", 10);

    assertThat(result.combined()).isTrue();
    assertThat(result.shardsUsed()).isEqualTo(3);
    assertThat(counter.total("c")).isEqualTo(2);
    assertThat(counter.shardValues("c")).allMatch(v -> v >= 0);
    assertThat(lockAcquisitions).hasValue(layout == CounterLayout.DOCUMENTS ? 1 : 0);
  }

  @ParameterizedTest
  @EnumSource(CounterLayout.class)
  void insufficientBalanceIsTypedAndWritesNothing(CounterLayout layout) {
    seed(layout, "c", 3, 4, 5);
    ShardedCounter counter = counter(layout, 3);

    assertThatThrownBy(() -> counter.decrement("c", 13))
        .isInstanceOfSatisfying(InsufficientBalanceException.class, e -> {
          assertThat(e.counterId()).isEqualTo("c");
          assertThat(e.requested()).isEqualTo(13);
          assertThat(e.available()).isEqualTo(12);
        })
        .hasMessage("counter 'c' cannot be decremented by 13: only 12 available;"
            + " nothing was written");
    assertThat(counter.shardValues("c")).containsExactly(3L, 4L, 5L);
    assertThatThrownBy(() -> counter.decrement("missing", 1))
        .isInstanceOf(InsufficientBalanceException.class);
    assertThat(collection.countDocuments()).isEqualTo(layout == CounterLayout.FIELDS ? 1 : 3);
  }

  @Test
  void documentsCombineWaitsForTheLockAndTimesOutWritingNothing() {
    seed(CounterLayout.DOCUMENTS, "c", 3, 4, 5);
    ShardedCounter counter = counter(CounterLayout.DOCUMENTS, 3);
    String key = "counter:" + collection.getNamespace().getFullName() + ":c";
    try (LockHandle held = locks.acquire(key, Duration.ofSeconds(1))) {
      assertThatThrownBy(() -> counter.decrement("c", 10))
          .isInstanceOf(LockTimeoutException.class);
      assertThat(counter.shardValues("c")).containsExactly(3L, 4L, 5L);
      // One shard suffices: no lock needed, so it goes through while the lock is held.
      assertThat(counter.decrement("c", 5).combined()).isFalse();
    }
    assertThat(counter.total("c")).isEqualTo(7);
  }

  @Test
  void singleShardIsAPlainCounter() {
    ShardedCounter counter = counter(CounterLayout.FIELDS, 1);
    counter.increment("one", 5);
    counter.decrement("one", 5);
    assertThat(counter.shardValues("one")).containsExactly(0L);
    assertThat(collection.find().first()).containsEntry("balance_shard_0", 0L);
  }

  @Test
  void badInputIsRejectedByName() {
    ShardedCounter counter = counter(CounterLayout.FIELDS, 2);
    assertThatThrownBy(() -> counter.increment("c", 0))
        .hasMessage("amount must be >= 1, was 0");
    assertThatThrownBy(() -> counter.decrement("c", -5))
        .hasMessage("amount must be >= 1, was -5");
    assertThatThrownBy(() -> counter.total(" "))
        .hasMessage("counterId must not be blank, was ' '");
    assertThatThrownBy(() -> ShardedCounter.builder(collection).shards(0))
        .hasMessage("shards must be >= 1, was 0");
    assertThatThrownBy(() -> ShardedCounter.builder(collection).shards(-3))
        .hasMessage("shards must be >= 1, was -3");
    assertThatThrownBy(() -> ShardedCounter.builder(collection).field("$where"))
        .hasMessageContaining("was '$where'");
    assertThatThrownBy(() -> ShardedCounter.builder(collection).field("a.b"))
        .hasMessageContaining("was 'a.b'");
    assertThatThrownBy(() -> ShardedCounter.builder(collection).lockWaitTimeout(Duration.ZERO))
        .hasMessage("lockWaitTimeout must be positive, was PT0S");
    assertThatThrownBy(() -> ShardedCounter.builder(collection)
        .layout(CounterLayout.DOCUMENTS).build())
        .hasMessageStartingWith("layout DOCUMENTS needs a lockService");
    assertThatThrownBy(() -> CounterLayout.parse("rows"))
        .hasMessage("unknown counter layout 'rows' (expected one of fields, documents)");
    assertThat(CounterLayout.parse(" Fields ")).isEqualTo(CounterLayout.FIELDS);
    assertThat(collection.countDocuments()).isZero();
  }

  @Test
  void planTakesFromTheFewestShards() {
    assertThat(ShardPlans.plan(new long[] {3, 9, 4}, 8)).containsExactly(0, 8, 0);
    assertThat(ShardPlans.plan(new long[] {3, 5, 4}, 11)).containsExactly(2, 5, 4);
    assertThatThrownBy(() -> ShardPlans.plan(new long[] {1, 1}, 3))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(List.of(ShardPlans.sum(new long[] {1, 2, 3}))).containsExactly(6L);
  }
}
