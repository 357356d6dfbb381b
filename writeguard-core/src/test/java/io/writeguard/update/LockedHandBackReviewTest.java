package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.update.LockedTesting.failureOf;
import static io.writeguard.update.LockedTesting.replaced;
import static io.writeguard.update.LockedTesting.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.writeguard.deadline.Deadlines;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedTesting.HeldBatch;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Review of 5758919 for {@link LockedUpdater}: a leader whose deadline cuts its batch's lock
 * wait hands the others back and returns; what its thread keeps afterwards (an interrupt set
 * aside during the wait, the record of held locks) and what the callers handed back get.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LockedHandBackReviewTest {
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("LockedHandBackReview").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private List<String> log(Object id) {
    return real.find(eq("_id", id)).first().getList("log", String.class);
  }

  record Ending(Throwable failure, boolean interrupted, boolean recordsNothing) {}

  @Test
  void aLeaderInterruptedInTheLockWaitKeepsItsInterruptWhenItHandsTheOthersBack()
      throws Exception {
    real.insertOne(new Document("_id", "i").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    LocalLockService locks = LocalLockService.create();
    LockedTesting.TerminalEvents listener = new LockedTesting.TerminalEvents();
    LockedUpdater updater = LockedUpdater.builder(real, locks).listener(listener)
        .lockWait(Duration.ofSeconds(30)).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("i", m),
        () -> updater.waiting("i"), c -> replaced(c, "first"));
    Thread[] bThread = new Thread[1];
    Future<Ending> b = pool.submit(() -> {
      bThread[0] = Thread.currentThread();
      Throwable failure = null;
      try {
        Deadlines.within(Duration.ofSeconds(2), () -> updater.update("i", c -> replaced(c, "b")));
      } catch (Throwable t) {
        failure = t;
      }
      return new Ending(failure, Thread.interrupted(), LockedUpdater.threadRecordsNothing());
    });
    waitUntil(() -> updater.waiting("i") == 1);
    Future<UpdateOutcome> c = held.queue(cur -> replaced(cur, "c"));
    Future<LockHandle> other = pool.submit(() -> locks.acquire("docs:i", Duration.ofSeconds(60)));
    waitUntil(() -> locks.waiting("docs:i") == 1);

    held.release();
    LockHandle otherHeld = other.get(60, TimeUnit.SECONDS);
    waitUntil(() -> locks.waiting("docs:i") == 1); // b's batch waits behind the other holder
    bThread[0].interrupt(); // set aside: c did not ask to stop
    Ending bEnd = b.get(30, TimeUnit.SECONDS); // b's 2 s deadline, with the lock still held
    boolean cAnsweredWhileHeld = c.isDone();
    otherHeld.close();
    Throwable cFailure = failureOf(c);

    assertThat(bEnd.failure()).isInstanceOf(LockTimeoutException.class);
    assertThat(bEnd.interrupted()).as("b's interrupt, set aside during the lock wait").isTrue();
    assertThat(bEnd.recordsNothing()).isTrue();
    assertThat(cAnsweredWhileHeld).isFalse();
    assertThat(cFailure).isNull();
    assertThat(log("i")).containsExactly("first", "c");
    assertThat(listener.events).as("one terminal event per caller")
        .containsExactlyInAnyOrder("success", "failure:LockTimeoutException", "success");
    assertThat(locks.waiting("docs:i")).isZero();
  }
}
