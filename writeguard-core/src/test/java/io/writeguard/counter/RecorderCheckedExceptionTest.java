package io.writeguard.counter;

import static io.writeguard.testing.Sneaky.checked;
import static io.writeguard.testing.Sneaky.sneakyThrow;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.writeguard.lock.LocalLockService;
import io.writeguard.testing.TestMongo;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 34: a {@link ChangeRecorder} (the caller's code) that throws a checked exception the
 * compiler does not see part-way through a locked drain: what the drain took is given back,
 * the caller gets that exception as it was thrown, and the combine lock is released (the next
 * drain gets it within 5 s, not after the 30 s lock wait).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RecorderCheckedExceptionTest {
  private final MongoCollection<Document> collection =
      TestMongo.freshDatabase("RecorderChecked").getCollection("counters");

  @Test
  void aRecorderThrowingACheckedExceptionMidDrainGivesBackAndReleasesTheLock() throws Exception {
    for (int i = 0; i < 2; i++) {
      collection.insertOne(new Document("_id", "r#" + i).append("counter", "r")
          .append("shard", i).append("balance", 3L));
    }
    ShardedCounter counter = ShardedCounter.builder(collection).layout(CounterLayout.DOCUMENTS)
        .shards(2).lockService(LocalLockService.create())
        .lockWaitTimeout(Duration.ofSeconds(30)).build();
    IOException thrown = checked("the change recorder");
    AtomicInteger takesOfTwo = new AtomicInteger();
    // 5 from [3, 3]: the drain takes 3, then 2; the recorder throws on the take of 2.
    ChangeRecorder recorder = change -> change == -2 && takesOfTwo.incrementAndGet() == 1
        ? sneakyThrow(thrown) : null;

    Throwable failure = null;
    try {
      counter.decrement("r", 5, recorder);
    } catch (Throwable t) {
      failure = t;
    }

    assertThat(takesOfTwo).as("the recorder was asked for the take of 2").hasValue(1);
    assertThat(failure).isSameAs(thrown);
    assertThat(counter.total("r")).as("the first take given back").isEqualTo(6);
    CompletableFuture<DecrementResult> next =
        CompletableFuture.supplyAsync(() -> counter.decrement("r", 5));
    try {
      assertThat(next.get(5, TimeUnit.SECONDS).combined()).isTrue();
    } catch (ExecutionException e) {
      throw new AssertionError("the next drain failed", e.getCause());
    }
    assertThat(counter.total("r")).isEqualTo(1);
  }
}
