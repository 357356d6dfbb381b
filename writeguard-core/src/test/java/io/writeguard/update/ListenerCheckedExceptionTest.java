package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.testing.Sneaky.checked;
import static io.writeguard.testing.Sneaky.sneaky;
import static io.writeguard.update.LockedTesting.failureWithin;
import static io.writeguard.update.LockedTesting.replaced;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedTesting.HeldBatch;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 34: a listener that throws a checked exception the compiler does not see, on every
 * event, is logged and ignored like one that throws a RuntimeException: every caller of a
 * group-commit batch is answered with its own outcome, within a bound (5 s).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ListenerCheckedExceptionTest {
  private static final Duration BOUND = Duration.ofSeconds(5);
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("ListenerChecked").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  /** Throws a checked exception on each event it is told of, and counts them. */
  static final class Throwing implements WriteGuardListener {
    final AtomicInteger thrown = new AtomicInteger();

    private void fail() {
      thrown.incrementAndGet();
      sneaky(checked("a listener"));
    }

    @Override
    public void onAttempt(OperationScope scope, Object key, int attempt) {
      fail();
    }

    @Override
    public void onSuccess(OperationScope scope, Object key, int attempts, Duration elapsed) {
      fail();
    }

    @Override
    public void onBatch(OperationScope scope, Object key, int size) {
      fail();
    }
  }

  @Test
  void aListenerThrowingACheckedExceptionNeverKeepsABatchsCallersFromTheirAnswers()
      throws Exception {
    real.insertOne(new Document("_id", "l").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    Throwing listener = new Throwing();
    VersionedUpdater updater = VersionedUpdater.builder(real).listener(listener).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("l", m),
        () -> updater.waiting("l"), c -> replaced(c, "first"));
    Future<UpdateOutcome> b = held.queue(c -> replaced(c, "b"));
    Future<UpdateOutcome> c = held.queue(c2 -> replaced(c2, "c"));
    held.release();

    assertThat(failureWithin(b, BOUND)).isNull();
    assertThat(failureWithin(c, BOUND)).isNull();
    assertThat(real.find(eq("_id", "l")).first().getList("log", String.class))
        .containsExactly("first", "b", "c");
    assertThat(listener.thrown.get()).isPositive();
  }
}
