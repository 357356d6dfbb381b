package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.update.LockedTesting.failureOf;
import static io.writeguard.update.LockedTesting.failureWithin;
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
 * Review of 4310636 (in-process lock waits cut to the caller's deadline): a group-commit
 * leader takes the document's lock for every caller of its batch, on its own thread, which
 * carries the leader's own deadline. The lock wait of a batch must not be cut by the deadline
 * of whichever caller happens to lead it, as the rounds after it are not ("the thread that
 * happens to run the round lends it none of its own", docs/deadlines.md): a caller with time
 * left must not fail because its leader's deadline passed; the leader, whose deadline passed, is
 * answered then, and its thread returns then too: the callers left are handed back to the
 * queue and wait on under a batch of their own.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LockedBatchLockWaitDeadlineReviewTest {
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("LockedBatchLockWait").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private List<String> log(Object id) {
    return real.find(eq("_id", id)).first().getList("log", String.class);
  }

  /**
   * b leads the batch [b, c]; c has no deadline of its own. b's deadline must not cut c's lock
   * wait, and b's own call is answered at its deadline, and so is its thread: it does not go on
   * waiting for the lock on behalf of the batch's other callers (found by {@code writeguard
   * chaos}: a {@code serve} request answered 2.1 s after its 10 s deadline, its thread waiting
   * out the rest of the lock wait for a follower). The follower is handed back to the queue
   * and waits on under a batch of its own, with nothing written for it meanwhile.
   */
  @Test
  void aLeadersDeadlineDoesNotCutTheLockWaitOfAFollowerWithTimeLeft() throws Exception {
    real.insertOne(new Document("_id", "f").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    LocalLockService locks = LocalLockService.create();
    LockedTesting.TerminalEvents listener = new LockedTesting.TerminalEvents();
    LockedUpdater updater = LockedUpdater.builder(real, locks).listener(listener)
        .lockWait(Duration.ofSeconds(30)).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("f", m),
        () -> updater.waiting("f"), c -> replaced(c, "first"));
    Future<UpdateOutcome> b = pool.submit(() -> Deadlines.within(Duration.ofSeconds(2),
        () -> updater.update("f", c -> replaced(c, "b"))));
    waitUntil(() -> updater.waiting("f") == 1);
    Future<UpdateOutcome> c = held.queue(cur -> replaced(cur, "c"));
    // Another holder (another part of the process) queues for the lock behind the first batch:
    // it gets the lock when the first batch releases it, before b's batch asks for it.
    Future<LockHandle> other = pool.submit(() -> locks.acquire("docs:f", Duration.ofSeconds(60)));
    waitUntil(() -> locks.waiting("docs:f") == 1);

    held.release();
    LockHandle otherHeld = other.get(60, TimeUnit.SECONDS);
    // The other holder keeps the lock: b's thread must come back at b's deadline anyway (2 s;
    // 15 s allows for a loaded machine and is still far from the 30 s lock wait).
    Throwable bFailure = failureWithin(b, Duration.ofSeconds(15));
    boolean cAnsweredWhileTheLockWasHeld = c.isDone();
    List<String> logWhileHeld = log("f");
    otherHeld.close();
    Throwable cFailure = failureOf(c);

    assertThat(bFailure).as("b, returned while another holder still had the lock")
        .isInstanceOf(LockTimeoutException.class);
    assertThat(cAnsweredWhileTheLockWasHeld).as("c still waits for the lock").isFalse();
    assertThat(logWhileHeld).containsExactly("first");
    assertThat(cFailure).as("c, which had 30 s of lock wait left").isNull();
    assertThat(log("f")).containsExactly("first", "c");
    assertThat(listener.events).as("one terminal event per caller")
        .containsExactlyInAnyOrder("success", "failure:LockTimeoutException", "success");
  }

  @Test
  void aBatchWithoutDeadlinesOfItsOwnStillWaitsTheWholeLockWait() throws Exception {
    // The same interleaving, nobody with a deadline of its own: the other holder is waited for.
    real.insertOne(new Document("_id", "e").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    LocalLockService locks = LocalLockService.create();
    LockedUpdater updater = LockedUpdater.builder(real, locks)
        .lockWait(Duration.ofSeconds(30)).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("e", m),
        () -> updater.waiting("e"), c -> replaced(c, "first"));
    Future<UpdateOutcome> b = held.queue(cur -> replaced(cur, "b"));
    Future<UpdateOutcome> c = held.queue(cur -> replaced(cur, "c"));
    Future<LockHandle> other = pool.submit(() -> locks.acquire("docs:e", Duration.ofSeconds(60)));
    waitUntil(() -> locks.waiting("docs:e") == 1);

    held.release();
    LockHandle otherHeld = other.get(60, TimeUnit.SECONDS);
    waitUntil(() -> locks.waiting("docs:e") == 1); // b's batch queued behind the other holder
    otherHeld.close();

    assertThat(failureOf(b)).isNull();
    assertThat(failureOf(c)).isNull();
    assertThat(log("e")).containsExactly("first", "b", "c");
  }
}
