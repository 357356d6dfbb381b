package io.writeguard.idempotency;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import io.writeguard.deadline.Deadlines;
import io.writeguard.testing.StallingProxy;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Issue 35: storing an idempotent action's outcome, and releasing the claim of an action that
 * failed, record work already done, so they must not stop at the caller's deadline. Bug: when
 * the action finished more than the grace after the deadline, storing its outcome got a 1 ms
 * budget, the driver refused it, the claim stayed pending, and when its lease ran out the next
 * caller ran the action again (a card charged twice). Each case runs on the server under test
 * and through a proxy that puts it 5 ms away (each way).
 */
class IdempotencyDeadlineOverrunRegressionTest {
  // Long enough for the claim on a loaded machine.
  private static final Duration DEADLINE = Duration.ofSeconds(1);
  // The action ends 400 ms after the deadline: past the 250 ms grace.
  private static final long ACTION_MS = 1400;
  // Twice the grace (the deadline had passed when the write began), plus a loaded machine.
  private static final Duration ANSWER_BOUND =
      Deadlines.OUTCOME_GRACE.multipliedBy(2).plusMillis(1500);

  private static MongoCollection<Document> freshCollection(MongoClient client) {
    String db = TestMongo.freshDatabase("OnceOverrun").getName();
    MongoCollection<Document> once = client.getDatabase(db).getCollection("once");
    // Connected and the collection created before the deadlines start.
    once.insertOne(new Document("_id", "warm-up"));
    return once;
  }

  @Test
  void anActionFinishingPastItsDeadlineIsRecordedAndRunsOnceOnTheEmbeddedServer() {
    actionPastItsDeadlineRunsOnce(freshCollection(TestMongo.client()));
  }

  @Test
  void anActionFinishingPastItsDeadlineIsRecordedAndRunsOnceOnAServer5msAway() {
    try (StallingProxy proxy = StallingProxy.forTestMongo()) {
      proxy.delay(Duration.ofMillis(5));
      try (MongoClient client = proxy.mongoClient()) {
        actionPastItsDeadlineRunsOnce(freshCollection(client));
      }
    }
  }

  @Test
  void theClaimOfAnActionFailingPastItsDeadlineIsReleasedOnTheEmbeddedServer() {
    failedActionPastItsDeadlineIsReleased(freshCollection(TestMongo.client()));
  }

  @Test
  void theClaimOfAnActionFailingPastItsDeadlineIsReleasedOnAServer5msAway() {
    try (StallingProxy proxy = StallingProxy.forTestMongo()) {
      proxy.delay(Duration.ofMillis(5));
      try (MongoClient client = proxy.mongoClient()) {
        failedActionPastItsDeadlineIsReleased(freshCollection(client));
      }
    }
  }

  private void actionPastItsDeadlineRunsOnce(MongoCollection<Document> once) {
    IdempotencyStore store = IdempotencyStore.builder(once).lease(Duration.ofSeconds(3)).build();
    AtomicInteger charges = new AtomicInteger();
    AtomicLong actionEnded = new AtomicLong();
    Object first = outcome(() -> Deadlines.within(DEADLINE, () -> store.once("charge:1",
        String.class, () -> {
          Thread.sleep(ACTION_MS);
          actionEnded.set(System.nanoTime());
          return "ch_" + charges.incrementAndGet();
        })));
    Duration answeredAfterTheAction = Duration.ofNanos(System.nanoTime() - actionEnded.get());

    assertThat(first).as("the first caller's answer").isEqualTo(new OnceResult<>("ch_1", true));
    assertThat(answeredAfterTheAction).isLessThan(ANSWER_BOUND);
    assertThat(once.find(eq("_id", "charge:1")).first())
        .containsEntry("state", "done").containsEntry("outcome", "ch_1");
    // The lease (3 s) runs out while this caller waits (5 s): with the claim left pending,
    // it took the key over and charged again.
    OnceResult<String> second = store.once("charge:1", String.class,
        () -> "ch_" + charges.incrementAndGet());
    assertThat(second).isEqualTo(new OnceResult<>("ch_1", false));
    assertThat(charges).hasValue(1);
  }

  private void failedActionPastItsDeadlineIsReleased(MongoCollection<Document> once) {
    IdempotencyStore store = IdempotencyStore.builder(once).lease(Duration.ofSeconds(30))
        .waitTimeout(Duration.ZERO).build();
    AtomicLong actionEnded = new AtomicLong();
    IllegalStateException declined = new IllegalStateException("card declined");
    Object first = outcome(() -> Deadlines.within(DEADLINE, () -> store.once("charge:2",
        String.class, () -> {
          Thread.sleep(ACTION_MS);
          actionEnded.set(System.nanoTime());
          throw declined;
        })));
    Duration answeredAfterTheAction = Duration.ofNanos(System.nanoTime() - actionEnded.get());

    assertThat(first).isSameAs(declined);
    assertThat(declined.getSuppressed()).as("nothing failed releasing the claim").isEmpty();
    assertThat(answeredAfterTheAction).isLessThan(ANSWER_BOUND);
    assertThat(once.find(eq("_id", "charge:2")).first()).as("the released claim").isNull();
    // Released: a retry runs at once, rather than waiting for the 30 s lease.
    assertThat(store.once("charge:2", String.class, () -> "ch_ok"))
        .isEqualTo(new OnceResult<>("ch_ok", true));
  }

  private static Object outcome(java.util.function.Supplier<?> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      return e;
    }
  }
}
