package io.writeguard.idempotency;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoSocketReadException;
import com.mongodb.ServerAddress;
import com.mongodb.client.MongoCollection;
import io.writeguard.testing.TestMongo;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Regression: storing the outcome is retried after a network error, but the retry was filtered
 * on {@code state: "pending"}. When the first try had been applied and only its reply was lost,
 * the retry matched nothing and the caller got {@link OutcomeNotRecordedException} ("another
 * caller took the key over, the action may have run twice") for an outcome that was stored.
 */
class IdempotencyCompleteRetryRegressionTest {
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("OnceRetry").getCollection("once");

  /** The first plain {@code updateOne(filter, update)} is applied, then its reply is "lost". */
  @SuppressWarnings("unchecked")
  private MongoCollection<Document> losingFirstCompletionReply(AtomicBoolean lost) {
    return (MongoCollection<Document>) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {MongoCollection.class}, (proxy, method, args) -> {
          Object result;
          try {
            result = method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          if (method.getName().equals("updateOne") && args.length == 2 && lost.compareAndSet(false, true)) {
            throw new MongoSocketReadException("connection reset after the write was sent (test)",
                new ServerAddress());
          }
          return result;
        });
  }

  @Test
  void anAppliedCompletionWhoseReplyWasLostIsNotReportedAsNotRecorded() {
    AtomicBoolean lost = new AtomicBoolean();
    IdempotencyStore store = IdempotencyStore.builder(losingFirstCompletionReply(lost)).build();
    AtomicInteger runs = new AtomicInteger();
    OnceResult<String> first = store.once("charge:7", String.class, () -> "ch_" + runs.incrementAndGet());
    assertThat(lost).as("the first completion's reply was lost").isTrue();
    assertThat(first).isEqualTo(new OnceResult<>("ch_1", true));
    assertThat(store.once("charge:7", String.class, () -> "ch_" + runs.incrementAndGet()))
        .isEqualTo(new OnceResult<>("ch_1", false));
    assertThat(runs).hasValue(1);
    assertThat(real.find(eq("_id", "charge:7")).first()).containsEntry("state", "done");
  }
}
