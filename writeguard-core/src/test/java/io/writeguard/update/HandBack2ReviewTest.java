package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.Ticker;
import io.writeguard.atomic.AtomicUpdates;
import io.writeguard.deadline.Deadlines;
import io.writeguard.path.FieldPath;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Second review of the hand-back (9c87638) through {@link VersionedUpdater}: a leader whose own
 * request is not in the batch it runs.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HandBack2ReviewTest {
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("HandBack2Review").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private void insert(String id) {
    VersionedInsert.insertOne(real, VersionPolicy.defaults(),
        new Document("_id", id).append("n", 0L).append("log", List.of()));
  }

  private static Mutation increment(Document current, String mark) {
    return Mutation.update(Updates.combine(
        Updates.set("n", current.getLong("n") + 1), Updates.push("log", mark)));
  }

  private static void pause(long millis) {
    long t0 = System.nanoTime();
    HeldBatch.waitUntil(() -> System.nanoTime() - t0 > TimeUnit.MILLISECONDS.toNanos(millis));
  }

  /**
   * maxBatchSize 2. L0 (400 ms deadline of its own) leads [L0, h1] with h2 queued behind: L0
   * writes nothing and is answered at once; h1's write conflicts (a competing writer, after
   * L0's deadline), so h1 is handed back to the head: the queue is [h1, h2]. Before h1's thread
   * takes the lead (held up here, through the ticker, in its look at its wait), a new caller L
   * (1 s deadline of its own) queues behind them and leads. Found in review: its batch was
   * [h1, h2], without its own request, and its thread ran h1's and h2's rounds (and a slow
   * mutator there) before its own, past its deadline. A leader's own request is now always in
   * the batch it runs: [h1, L], then h2 under a leader of its own; L's thread runs one batch.
   */
  @Test
  void aLeaderWhoseOwnRequestIsNotInItsBatchReturnsByItsDeadline() throws Exception {
    insert("own");
    AtomicReference<Thread> stallOn = new AtomicReference<>();
    CountDownLatch unstall = new CountDownLatch(1);
    Ticker ticker = () -> {
      Thread me = Thread.currentThread();
      if (me == stallOn.get() && stallOn.compareAndSet(me, null)) {
        try {
          unstall.await(10, TimeUnit.SECONDS); // bounded: never hangs the build
        } catch (InterruptedException e) {
          me.interrupt();
        }
      }
      return System.nanoTime();
    };
    VersionedUpdater updater = VersionedUpdater.builder(real)
        .retryPolicy(RetryPolicy.builder().maxAttempts(100).deadline(Duration.ofSeconds(30))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(5)).build())
        .maxBatchSize(2)
        .ticker(ticker)
        .build();
    AtomicUpdates.Versioned atomic = AtomicUpdates.versioned(VersionPolicy.defaults());
    HeldBatch held = new HeldBatch(pool, updater, "own", current -> increment(current, "first"));
    Future<UpdateOutcome> l0 = held.queue(() -> Deadlines.within(Duration.ofMillis(400),
        () -> updater.update("own", current -> Mutation.none())));
    AtomicReference<Thread> h1Thread = new AtomicReference<>();
    AtomicBoolean h1FirstRun = new AtomicBoolean(true);
    AtomicReference<Thread> h1SecondRanOn = new AtomicReference<>();
    AtomicReference<Future<UpdateOutcome>> lRef = new AtomicReference<>();
    Future<UpdateOutcome> h1 = held.queue(() -> {
      h1Thread.set(Thread.currentThread());
      return updater.update("own", current -> {
        if (h1FirstRun.compareAndSet(true, false)) {
          // Taken, its caller's thread parked: its next look at the ticker is after hand-back.
          stallOn.set(h1Thread.get());
          pause(800); // past L0's deadline
          real.updateOne(eq("_id", "own"), atomic.raising(
              AtomicUpdates.push(FieldPath.of("log"), "competitor")));
        } else if (h1SecondRanOn.compareAndSet(null, Thread.currentThread())) {
          unstall.countDown();
        }
        return increment(current, "h1");
      });
    });
    Future<UpdateOutcome> h2 = held.queue(current -> increment(current, "h2"));
    held.release();
    assertThat(l0.get(60, TimeUnit.SECONDS).written()).isFalse();

    AtomicReference<Thread> lThread = new AtomicReference<>();
    lRef.set(pool.submit(() -> {
      lThread.set(Thread.currentThread());
      return Deadlines.within(Duration.ofSeconds(1),
          () -> updater.update("own", current -> increment(current, "L")));
    }));
    Future<UpdateOutcome> l = lRef.get();
    try {
      h1.get(60, TimeUnit.SECONDS);
      h2.get(60, TimeUnit.SECONDS);
      try {
        l.get(60, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException ignored) {
        // its deadline may have passed: what matters is when it was answered
      }
    } finally {
      unstall.countDown();
    }
    assertThat(h1SecondRanOn.get()).as("h1's second run, in L's batch").isSameAs(lThread.get());
    assertThat(real.find(eq("_id", "own")).first().getList("log", String.class))
        .as("L's own request in the batch its thread ran, ahead of h2")
        .containsExactly("first", "competitor", "h1", "L", "h2");
  }
}
