package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.update.LockedTesting.failureOf;
import static io.writeguard.update.LockedTesting.replaced;
import static io.writeguard.update.LockedTesting.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.Ticker;
import io.writeguard.deadline.Deadlines;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.testing.Gates;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedTesting.HeldBatch;
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

  /**
   * A call that had the lock and made an attempt, was handed back between rounds (its leader b
   * answered and past its deadline), and then stayed queued past its own deadline (its thread
   * held up, through the ticker, in its look at its wait) is given up as a lone update out of
   * time is: {@link RetriesExhaustedException} with the attempt it made, not a
   * {@link LockTimeoutException} saying the lock was never had. Nothing of it is written.
   */
  @Test
  void aCallHandedBackAfterAnAttemptAndWithdrawnAtItsDeadlineIsExhaustedWithThatAttempt()
      throws Exception {
    real.insertOne(new Document("_id", "x").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    AtomicReference<Thread> stallOn = new AtomicReference<>();
    CountDownLatch unstall = new CountDownLatch(1);
    Ticker ticker = () -> {
      Thread me = Thread.currentThread();
      if (me == stallOn.get() && stallOn.compareAndSet(me, null)) {
        Gates.await(unstall);
      }
      return System.nanoTime();
    };
    LockedTesting.TerminalEvents listener = new LockedTesting.TerminalEvents();
    LockedUpdater updater = LockedUpdater.builder(real, LocalLockService.create())
        .ticker(ticker).listener(listener).lockWait(Duration.ofSeconds(5))
        .retryPolicy(RetryPolicy.builder().maxAttempts(100).deadline(Duration.ofSeconds(30))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(5)).build())
        .build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("x", m),
        () -> updater.waiting("x"), cur -> replaced(cur, "first"));
    long bStart = System.nanoTime();
    Future<UpdateOutcome> b = pool.submit(() -> Deadlines.within(Duration.ofSeconds(1),
        () -> updater.update("x", cur -> Mutation.none())));
    waitUntil(() -> updater.waiting("x") == 1);
    AtomicReference<Thread> cThread = new AtomicReference<>();
    AtomicBoolean cFirstRun = new AtomicBoolean(true);
    long[] cStart = new long[1];
    Future<UpdateOutcome> c = pool.submit(() -> {
      cThread.set(Thread.currentThread());
      cStart[0] = System.nanoTime();
      return Deadlines.within(Duration.ofSeconds(2), () -> updater.update("x", cur -> {
        if (cFirstRun.compareAndSet(true, false)) {
          stallOn.set(cThread.get()); // its next look at its wait is after the hand-back
          waitUntil(() -> System.nanoTime() - bStart > TimeUnit.MILLISECONDS.toNanos(1200));
          real.updateOne(eq("_id", "x"), Updates.combine(Updates.inc("version", 1L),
              Updates.push("log", "competitor"))); // c's write conflicts
        }
        return replaced(cur, "c");
      }));
    });
    waitUntil(() -> updater.waiting("x") == 2);
    held.release();
    assertThat(failureOf(b)).isNull(); // wrote nothing, answered in the first round
    waitUntil(() -> System.nanoTime() - cStart[0] > TimeUnit.MILLISECONDS.toNanos(2300));
    unstall.countDown(); // c's deadline has passed

    Throwable cFailure = failureOf(c);
    assertThat(cFailure).isInstanceOfSatisfying(RetriesExhaustedException.class, e -> {
      assertThat(e.attempts()).as("the attempt it made before the hand-back").isEqualTo(1);
      assertThat(e.budget()).isEqualTo(RetriesExhaustedException.Budget.DEADLINE);
    });
    assertThat(log("x")).containsExactly("first", "competitor");
    assertThat(listener.events).as("one terminal event per caller")
        .containsExactlyInAnyOrder("success", "success", "exhausted");
  }
}
