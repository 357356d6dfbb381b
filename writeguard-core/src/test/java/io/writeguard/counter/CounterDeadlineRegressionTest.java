package io.writeguard.counter;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.MongoSocketOpenException;
import com.mongodb.MongoWriteException;
import com.mongodb.ServerAddress;
import com.mongodb.WriteError;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import io.writeguard.deadline.Deadlines;
import io.writeguard.internal.MustFinish;
import io.writeguard.lock.LocalLockService;
import io.writeguard.testing.StallingProxy;
import io.writeguard.testing.TestMongo;
import io.writeguard.testing.WriteHook;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Issue 35: a drain's give-backs record takes already applied, so they must not stop at the
 * caller's deadline; and a give-back that cannot be made names only what is really missing.
 * Two shards [3, 3]: write 1 is the single-shard try, writes 2 and 3 the drain's takes of
 * shard 0 and shard 1, then come the give-backs. The deadline cases run on the server under
 * test and through a proxy that puts it 5 ms away (each way), where a 1 ms budget never works.
 */
class CounterDeadlineRegressionTest {
  private static final AtomicInteger ids = new AtomicInteger();
  // Long enough for the writes before the stall on a loaded machine.
  private static final Duration DEADLINE = Duration.ofSeconds(1);
  // Past the deadline and its grace, so every write after it had the expired budget.
  private static final long STALL_MS = DEADLINE.plus(Deadlines.OUTCOME_GRACE).toMillis() + 150;
  // The stall, then twice the grace per give-back (the deadline had passed), plus a loaded
  // machine's scheduling.
  private static final Duration ANSWER_BOUND = Duration.ofMillis(STALL_MS)
      .plus(Deadlines.OUTCOME_GRACE.multipliedBy(4)).plusMillis(1500);

  private final MongoCollection<Document> collection =
      TestMongo.freshDatabase("CounterDeadline").getCollection("counters");

  /**
   * Bug: the take of shard 1 ran past the deadline and failed; the give-back of shard 0's 3 got
   * the expired budget, the driver refused it, and the caller got StrandedBalanceException with
   * the total at 3 instead of 6, while the server was answering all along.
   */
  @Test
  void aDrainFailingPastItsDeadlineGivesEverythingBackOnTheEmbeddedServer() {
    drainFailingPastItsDeadline(TestMongo.client());
  }

  @Test
  void aDrainFailingPastItsDeadlineGivesEverythingBackOnAServer5msAway() {
    try (StallingProxy proxy = StallingProxy.forTestMongo().delay(Duration.ofMillis(5));
        MongoClient client = proxy.mongoClient()) {
      drainFailingPastItsDeadline(client);
    }
  }

  /**
   * The other way: every take was applied, the deadline passed during the last one, and the
   * drain found too little (or could not read any more). Either way both takes are given back.
   */
  @Test
  void aDrainRefusedPastItsDeadlineGivesEverythingBackOnTheEmbeddedServer() {
    drainRefusedPastItsDeadline(TestMongo.client());
  }

  @Test
  void aDrainRefusedPastItsDeadlineGivesEverythingBackOnAServer5msAway() {
    try (StallingProxy proxy = StallingProxy.forTestMongo().delay(Duration.ofMillis(5));
        MongoClient client = proxy.mongoClient()) {
      drainRefusedPastItsDeadline(client);
    }
  }

  private void drainFailingPastItsDeadline(MongoClient client) {
    String id = seed(3, 3);
    WriteHook hook = new WriteHook((n, send) -> {
      if (n == 3) {
        Thread.sleep(STALL_MS);
        throw new MongoOperationTimeoutException("injected: the take timed out, unsent");
      }
      return send.call();
    });
    ShardedCounter counter = counter(hook.wrap(through(client)), DEADLINE);
    long start = System.nanoTime();
    Object outcome = outcome(() -> counter.decrement(id, 5));
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(outcome).isInstanceOf(DecrementFailedException.class);
    assertThat(plain().shardValues(id)).containsExactly(3L, 3L);
    assertThat(took).isLessThan(ANSWER_BOUND);
  }

  private void drainRefusedPastItsDeadline(MongoClient client) {
    String id = seed(3, 3);
    WriteHook hook = new WriteHook((n, send) -> {
      Object result = send.call();
      if (n == 3) {
        Thread.sleep(STALL_MS);
      }
      return result;
    });
    ShardedCounter counter = counter(hook.wrap(through(client)), DEADLINE);
    long start = System.nanoTime();
    Object outcome = outcome(() -> counter.decrement(id, 10));
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(outcome).isInstanceOfAny(InsufficientBalanceException.class,
        DecrementFailedException.class);
    assertThat(plain().shardValues(id)).containsExactly(3L, 3L);
    assertThat(took).isLessThan(ANSWER_BOUND);
  }

  /** The test's collection through {@code client}, connected before any deadline starts. */
  private MongoCollection<Document> through(MongoClient client) {
    MongoCollection<Document> c = client.getDatabase(collection.getNamespace().getDatabaseName())
        .getCollection(collection.getNamespace().getCollectionName());
    c.find().first();
    return c;
  }

  /**
   * Bug: the take of shard 1 was refused unsent, then the server refused every give-back; the
   * exception listed {0=3, 1=2} when the counter was short by 3, so adding back what it named
   * created 2 from nothing. It must name exactly the missing amounts.
   */
  @Test
  void aStrandedBalanceNamesOnlyTakesThatWereApplied() {
    String id = seed(3, 2);
    WriteHook hook = new WriteHook((n, send) -> {
      if (n >= 3) {
        throw new MongoWriteException(new WriteError(14031, "injected: out of disk space",
            new BsonDocument()), new ServerAddress(), List.of());
      }
      return send.call();
    });
    Object outcome = outcome(() -> counter(hook.wrap(collection), Duration.ofSeconds(10))
        .decrement(id, 5));

    assertThat(outcome).isInstanceOf(StrandedBalanceException.class);
    StrandedBalanceException stranded = (StrandedBalanceException) outcome;
    assertThat(plain().total(id)).isEqualTo(2);
    assertThat(stranded.strandedByShard()).isEqualTo(Map.of(0, 3L));
  }

  /**
   * A give-back not done when the caller's wait ends goes on in the background: the caller is
   * told it is returning (not missing), and the counter is whole again once it is done.
   */
  @Test
  void aGiveBackNotDoneInTimeIsReportedReturningAndCompletesInTheBackground() throws Exception {
    String id = seed(3, 3);
    CountDownLatch answered = new CountDownLatch(1);
    WriteHook hook = new WriteHook((n, send) -> {
      if (Thread.currentThread().getName().startsWith("writeguard-must-finish")) {
        // the background's sends wait until the caller has its answer
        assertThat(answered.await(10, TimeUnit.SECONDS)).isTrue();
      }
      if (n == 3) { // the take of shard 1, refused: the drain fails
        throw new MongoWriteException(new WriteError(14031, "injected: out of disk space",
            new BsonDocument()), new ServerAddress(), List.of());
      }
      if (n >= 4 && n <= 6) { // the three sends of shard 0's give-back the caller waits for
        throw new MongoSocketOpenException("injected: no connection", new ServerAddress());
      }
      return send.call();
    });
    Object outcome = outcome(() -> counter(hook.wrap(collection), Duration.ofSeconds(10))
        .decrement(id, 5));
    answered.countDown();

    assertThat(outcome).isInstanceOf(StrandedBalanceException.class);
    StrandedBalanceException e = (StrandedBalanceException) outcome;
    assertThat(e.strandedByShard()).isEmpty();
    assertThat(e.returningByShard()).isEqualTo(Map.of(0, 3L));
    long until = System.nanoTime() + MustFinish.BUDGET.toNanos();
    while (plain().total(id) != 6 && System.nanoTime() < until) {
      Thread.sleep(20);
    }
    assertThat(plain().shardValues(id)).containsExactly(3L, 3L);
  }

  private ShardedCounter counter(MongoCollection<Document> c, Duration deadline) {
    return ShardedCounter.builder(c).layout(CounterLayout.DOCUMENTS).shards(2)
        .lockService(LocalLockService.create()).deadline(deadline).build();
  }

  private ShardedCounter plain() {
    return ShardedCounter.builder(collection).layout(CounterLayout.DOCUMENTS).shards(2)
        .lockService(LocalLockService.create()).build();
  }

  private static Object outcome(java.util.function.Supplier<?> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      return e;
    }
  }

  private String seed(long... values) {
    String id = "c" + ids.incrementAndGet();
    for (int i = 0; i < values.length; i++) {
      collection.insertOne(new Document("_id", id + "#" + i).append("counter", id)
          .append("shard", i).append("balance", values[i]));
    }
    return id;
  }
}
