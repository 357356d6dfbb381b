package io.writeguard.idempotency;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoSocketReadException;
import com.mongodb.ServerAddress;
import com.mongodb.client.MongoCollection;
import io.writeguard.testing.TestMongo;
import io.writeguard.testing.WriteHook;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Review of issue 35: an outcome still being stored in the background when the claim's lease
 * runs out. Another caller takes the key over and stores its own outcome; the background send
 * that comes after must not overwrite the newer owner's record (it is filtered on the first
 * claim's token).
 */
class IdempotencyBackgroundOutcomeTest {
  private static final Duration LEASE = Duration.ofMillis(300);

  @Test
  void aBackgroundStoreAfterATakeoverLeavesTheNewOwnersOutcome() throws Exception {
    MongoCollection<Document> collection =
        TestMongo.freshDatabase("OnceBackground").getCollection("once");
    CountDownLatch secondDone = new CountDownLatch(1);
    CountDownLatch backgroundSent = new CountDownLatch(1);
    AtomicInteger callerStores = new AtomicInteger();
    WriteHook hook = new WriteHook((n, send) -> {
      if (Thread.currentThread().getName().startsWith("writeguard-must-finish")) {
        // held until the second caller has taken over and stored its outcome (bounded)
        assertThat(secondDone.await(8, TimeUnit.SECONDS)).isTrue();
        try {
          return send.call();
        } finally {
          backgroundSent.countDown();
        }
      }
      if (n >= 2) { // the outcome's sends the first caller waits for: every reply lost
        callerStores.incrementAndGet();
        throw new MongoSocketReadException("injected: reply lost", new ServerAddress());
      }
      return send.call(); // the claim
    });
    IdempotencyStore first = IdempotencyStore.builder(hook.wrap(collection)).lease(LEASE).build();
    IdempotencyStore second = IdempotencyStore.builder(collection).lease(LEASE).build();

    assertThatThrownBy(() -> first.once("k", String.class, () -> "first"))
        .isInstanceOf(OutcomeNotRecordedException.class)
        .hasMessageContaining("background");
    assertThat(callerStores.get()).isEqualTo(3);

    Thread.sleep(LEASE.toMillis() + 200); // the first claim's lease runs out (server clock)
    OnceResult<String> taken = second.once("k", String.class, () -> "second");
    assertThat(taken.executed()).as("the lease ran out: the second caller ran it").isTrue();
    secondDone.countDown();
    assertThat(backgroundSent.await(10, TimeUnit.SECONDS)).isTrue();

    Document record = collection.find(eq("_id", "k")).first();
    assertThat(record.getString("state")).isEqualTo("done");
    assertThat(record.get("outcome")).isEqualTo("second");
    OnceResult<String> later = second.once("k", String.class, () -> "third");
    assertThat(later.executed()).isFalse();
    assertThat(later.value()).isEqualTo("second");
  }
}
