package io.writeguard.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.mongodb.client.MongoCollection;
import io.writeguard.lock.LocalLockService;
import io.writeguard.testing.ApplyThenFail;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.WriteOutcomeUnknownException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.bson.Document;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Issue 8, "a refused counter decrement can create money": every write the counter makes is,
 * in turn, applied by the server and then reported lost (a socket read error, as when a reply
 * is lost or a failover happens after sending). For each write index the counter's invariant
 * must hold: no shard negative, and the total is exactly what the caller was told (a result,
 * {@link InsufficientBalanceException} or {@link DecrementFailedException}: both totals exact),
 * or one of the two possible totals when the caller was told {@link
 * WriteOutcomeUnknownException}, or short by exactly the amounts a {@link
 * StrandedBalanceException} names. Each write index is tried alone and as the first of three
 * lost replies in a row (so a re-sent write is lost as well). Nothing else may reach the caller (no raw driver exception).
 *
 * <p>The old combiner retried a give-back {@code $inc} blindly (a refused decrement of 10 from
 * [3, 3] left 9) and forgot a drained take whose reply was lost (it left 3).
 */
class CounterLostReplyRegressionTest {
  private static final AtomicInteger ids = new AtomicInteger();
  private final MongoCollection<Document> collection =
      TestMongo.freshDatabase("CounterLostReply").getCollection("counters");
  private final LocalLockService locks = LocalLockService.builder().build();

  /** One operation on a counter seeded with shards [3, 3]: what it asks and what it should do. */
  private record Scenario(String name, long[] seed, Consumer<ShardedCounter> op, long delta,
      boolean refused) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static List<Scenario> scenarios(String[] counterIdHolder) {
    return List.of(
        new Scenario("refused decrement of 10 from [3,3]", new long[] {3, 3},
            c -> c.decrement(counterIdHolder[0], 10), 0, true),
        new Scenario("combined decrement of 5 from [3,3]", new long[] {3, 3},
            c -> c.decrement(counterIdHolder[0], 5), -5, false),
        new Scenario("single-shard decrement of 2 from [3,3]", new long[] {3, 3},
            c -> c.decrement(counterIdHolder[0], 2), -2, false),
        new Scenario("increment of 7", new long[] {3, 3},
            c -> c.increment(counterIdHolder[0], 7), 7, false));
  }

  @TestFactory
  List<DynamicTest> everyCounterWriteMayBeAppliedAndReportedLost() {
    List<DynamicTest> tests = new ArrayList<>();
    String[] holder = new String[1];
    for (CounterLayout layout : CounterLayout.values()) {
      for (Scenario scenario : scenarios(holder)) {
        int writes = countWrites(layout, scenario, holder);
        for (int failAt = 1; failAt <= writes; failAt++) {
          for (int inARow : new int[] {1, 3}) {
            int at = failAt;
            tests.add(DynamicTest.dynamicTest(layout + ", " + scenario + ", writes " + at + ".."
                + (at + inARow - 1) + " (of " + writes + ") applied then lost",
                () -> check(layout, scenario, holder, ApplyThenFail.atWrites(at, inARow))));
          }
        }
      }
    }
    return tests;
  }

  private int countWrites(CounterLayout layout, Scenario scenario, String[] holder) {
    ApplyThenFail none = ApplyThenFail.never();
    holder[0] = seed(layout, scenario.seed());
    try {
      scenario.op().accept(counter(layout, none.wrap(collection), 2));
    } catch (InsufficientBalanceException expected) {
      assertThat(scenario.refused()).isTrue();
    }
    return none.writes();
  }

  private void check(CounterLayout layout, Scenario scenario, String[] holder,
      ApplyThenFail fault) {
    String id = seed(layout, scenario.seed());
    holder[0] = id;
    ShardedCounter faulty = counter(layout, fault.wrap(collection), 2);
    ShardedCounter plain = counter(layout, collection, 2);
    long before = plain.total(id);
    long expected = before + scenario.delta();
    Supplier<String> where = () -> "writes " + fault.log();
    try {
      scenario.op().accept(faulty);
      assertThat(scenario.refused()).as(() -> "succeeded, " + where.get()).isFalse();
      assertThat(plain.total(id)).as(() -> "total after a success, " + where.get()).isEqualTo(expected);
    } catch (InsufficientBalanceException e) {
      assertThat(scenario.refused()).as(() -> "refused, " + where.get()).isTrue();
      assertThat(plain.total(id)).as(() -> "total after a refusal, " + where.get()).isEqualTo(before);
    } catch (DecrementFailedException e) {
      assertThat(e.getMessage()).contains(id).contains("nothing was written");
      assertThat(plain.total(id)).as(() -> "total after 'nothing written', " + where.get()).isEqualTo(before);
    } catch (WriteOutcomeUnknownException e) {
      assertThat(e.getMessage()).contains(id);
      assertThat(plain.total(id)).as(() -> "total after an unknown outcome, " + where.get())
          .isIn(before, expected);
    } catch (StrandedBalanceException e) {
      long stranded = e.strandedByShard().values().stream().mapToLong(Long::longValue).sum();
      assertThat(plain.total(id) + stranded).as(() -> "total + stranded, " + where.get())
          .isEqualTo(before);
    } catch (RuntimeException e) {
      fail("untyped failure " + e + ", " + where.get(), e);
    }
    assertThat(fault.fired()).as(where).isTrue();
    assertThat(plain.shardValues(id)).as(where).allMatch(v -> v >= 0);
  }

  private ShardedCounter counter(CounterLayout layout, MongoCollection<Document> c, int shards) {
    return ShardedCounter.builder(c).layout(layout).shards(shards).lockService(locks)
        .lockWaitTimeout(Duration.ofSeconds(30)).build();
  }

  private String seed(CounterLayout layout, long[] values) {
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
}
