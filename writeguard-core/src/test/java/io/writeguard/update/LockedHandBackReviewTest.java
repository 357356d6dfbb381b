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

  /**
   * The lock wait is one per call: {@code lockWait(4 s)}. b (3.5 s deadline) leads [b, c]; the
   * lock is held by another holder throughout. At b's deadline c is handed back and its own
   * batch asks for the lock again, with a whole new lock wait: c waits about 7.5 s in all, not
   * the 4 s it was given. Checked at 6 s, well between the two.
   */
  @Test
  void aCallerHandedBackWaitsForTheLockNoLongerThanItsLockWaitInAll() throws Exception {
    real.insertOne(new Document("_id", "w").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    LocalLockService locks = LocalLockService.create();
    LockedUpdater updater = LockedUpdater.builder(real, locks)
        .lockWait(Duration.ofSeconds(4)).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("w", m),
        () -> updater.waiting("w"), c -> replaced(c, "first"));
    Future<UpdateOutcome> b = pool.submit(() -> Deadlines.within(Duration.ofMillis(3500),
        () -> updater.update("w", c -> replaced(c, "b"))));
    waitUntil(() -> updater.waiting("w") == 1);
    long cQueued = System.nanoTime();
    Future<UpdateOutcome> c = held.queue(cur -> replaced(cur, "c"));
    Future<LockHandle> other = pool.submit(() -> locks.acquire("docs:w", Duration.ofSeconds(60)));
    waitUntil(() -> locks.waiting("docs:w") == 1);

    held.release();
    LockHandle otherHeld = other.get(60, TimeUnit.SECONDS);
    try {
      assertThat(failureOf(b)).isInstanceOf(LockTimeoutException.class);
      waitUntil(() -> c.isDone()
          || System.nanoTime() - cQueued > TimeUnit.MILLISECONDS.toNanos(6000));
      boolean cAnsweredBy6s = c.isDone();
      long cAnsweredAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cQueued);
      Throwable cFailure = failureOf(c);
      cAnsweredAfterMs = cAnsweredBy6s ? cAnsweredAfterMs
          : TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cQueued);
      assertThat(cFailure).isInstanceOf(LockTimeoutException.class);
      assertThat(cAnsweredBy6s).as("c, lock wait 4 s, answered after %d ms", cAnsweredAfterMs)
          .isTrue();
    } finally {
      otherHeld.close();
    }
    assertThat(log("w")).containsExactly("first");
  }
}
