package io.writeguard.counter;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.or;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.lock.LocalLockService;
import io.writeguard.testing.ApplyThenFail;
import io.writeguard.testing.Concurrently;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ChangeRecorder}: a per-operation ledger written in the same writes as the balance must
 * add up, per operation, to exactly what the operation did, and in all to the total, in every
 * path a decrement can take (one shard, a combined take, a drain, a refused drain given back, a
 * drain write whose reply was lost and that was re-sent).
 */
class ChangeRecorderTest {
  private static final AtomicInteger ids = new AtomicInteger();
  private final MongoCollection<Document> collection =
      TestMongo.freshDatabase("ChangeRecorder").getCollection("counters");
  private final LocalLockService locks = LocalLockService.builder().build();

  private static ChangeRecorder ledger(String opId) {
    return change -> Updates.push("ledger", new Document("op", opId).append("change", change));
  }

  private ShardedCounter counter(CounterLayout layout, MongoCollection<Document> c, int shards) {
    return ShardedCounter.builder(c).layout(layout).shards(shards).lockService(locks)
        .lockWaitTimeout(Duration.ofSeconds(30)).build();
  }

  private String seed(CounterLayout layout, long... values) {
    String id = "c" + ids.incrementAndGet();
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
    return id;
  }

  /** Sum of the recorded changes per operation id, over the counter's documents. */
  private Map<String, Long> recorded(String counterId) {
    Map<String, Long> byOp = new HashMap<>();
    for (Document doc : collection.find(or(eq("_id", counterId), eq("counter", counterId)))) {
      for (Document entry : doc.getList("ledger", Document.class, List.of())) {
        byOp.merge(entry.getString("op"), ((Number) entry.get("change")).longValue(), Long::sum);
      }
    }
    return byOp;
  }

  @ParameterizedTest
  @EnumSource(CounterLayout.class)
  void everyPathRecordsExactlyWhatTheOperationDid(CounterLayout layout) {
    String id = seed(layout, 3, 3);
    ShardedCounter counter = counter(layout, collection, 2);

    counter.increment(id, 4, ledger("inc"));            // [3+4, 3] or [3, 3+4]
    counter.decrement(id, 2, ledger("one-shard"));      // any shard covers 2
    assertThatThrownBy(() -> counter.decrement(id, 100, ledger("refused")))
        .isInstanceOf(InsufficientBalanceException.class);
    DecrementResult combined = counter.decrement(id, 8, ledger("combined")); // 8 of 8 left
    assertThat(combined.shardsUsed()).isEqualTo(2);

    Map<String, Long> byOp = recorded(id);
    assertThat(byOp).containsEntry("inc", 4L).containsEntry("one-shard", -2L)
        .containsEntry("combined", -8L);
    assertThat(byOp.getOrDefault("refused", 0L)).isZero();
    assertThat(counter.total(id)).isZero()
        .isEqualTo(6 + byOp.values().stream().mapToLong(Long::longValue).sum());
  }

  @ParameterizedTest
  @EnumSource(CounterLayout.class)
  void aLostReplyOfADrainWriteIsRecordedOnceLikeTheWrite(CounterLayout layout) {
    // Refused decrement of 10 from [3, 3]: write 2 (a take, documents layout) or write 1 is
    // applied and its reply lost, the counter re-sends or reports; the ledger follows the
    // balance exactly whatever happens.
    for (int failAt = 1; failAt <= 4; failAt++) {
      String id = seed(layout, 3, 3);
      ApplyThenFail fault = ApplyThenFail.atWrite(failAt);
      ShardedCounter faulty = counter(layout, fault.wrap(collection), 2);
      try {
        faulty.decrement(id, 10, ledger("op"));
      } catch (RuntimeException expected) {
        // refused, failed or unknown: the ledger must agree with the balance in every case
      }
      long total = counter(layout, collection, 2).total(id);
      assertThat(total).as("fail at write %d, writes %s", failAt, fault.log()).isEqualTo(6);
      assertThat(recorded(id).getOrDefault("op", 0L)).as("fail at write %d", failAt).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(CounterLayout.class)
  void concurrentOperationsEachFindExactlyTheirOwnRecord(CounterLayout layout) throws Exception {
    String id = seed(layout, 0, 0, 0, 0);
    ShardedCounter counter = counter(layout, collection, 4);
    int threads = 8;
    int perThread = 60;
    Map<String, Long> acknowledged = new java.util.concurrent.ConcurrentHashMap<>();
    Concurrently.run(threads, Duration.ofSeconds(60), t -> {
      for (int i = 0; i < perThread; i++) {
        String op = t + ":" + i;
        long amount = 1 + (i * 7 + t) % 9;
        if (i % 2 == 0) {
          counter.increment(id, amount, ledger(op));
          acknowledged.put(op, amount);
        } else {
          try {
            counter.decrement(id, amount, ledger(op));
            acknowledged.put(op, -amount);
          } catch (InsufficientBalanceException refused) {
            acknowledged.put(op, 0L);
          }
        }
      }
    });
    Map<String, Long> byOp = recorded(id);
    assertThat(acknowledged).hasSize(threads * perThread);
    acknowledged.forEach((op, change) ->
        assertThat(byOp.getOrDefault(op, 0L)).as("operation %s", op).isEqualTo(change));
    assertThat(counter.total(id))
        .isEqualTo(byOp.values().stream().mapToLong(Long::longValue).sum());
  }

  @ParameterizedTest
  @EnumSource(CounterLayout.class)
  void aRecorderThatWritesTheCounterFieldsIsRefusedBeforeAnythingIsWritten(
      CounterLayout layout) {
    String id = seed(layout, 5, 5);
    ShardedCounter counter = counter(layout, collection, 2);
    // Every shard's field, not only the one a write picks at random: a recorder writing the
    // other shard's balance would corrupt it (this test was flaky while only the picked one was).
    String shard0 = layout == CounterLayout.FIELDS ? "balance_shard_0" : "balance";
    String shard1 = layout == CounterLayout.FIELDS ? "balance_shard_1" : "balance";
    for (ChangeRecorder bad : List.<ChangeRecorder>of(
        change -> Updates.set(shard0, 99L),
        change -> Updates.set(shard1, 99L),
        change -> Updates.push("_ops", "x"),
        change -> Updates.set("counter", "other"),
        change -> new Document("ledger", change))) {
      assertThatThrownBy(() -> counter.increment(id, 1, bad))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ChangeRecorder");
      assertThatThrownBy(() -> counter.decrement(id, 8, bad))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ChangeRecorder");
    }
    assertThat(counter.shardValues(id)).containsExactly(5L, 5L);
  }
}
