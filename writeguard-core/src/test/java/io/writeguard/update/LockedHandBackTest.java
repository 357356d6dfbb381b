package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.update.LockedTesting.failureOf;
import static io.writeguard.update.LockedTesting.pause;
import static io.writeguard.update.LockedTesting.replaced;
import static io.writeguard.update.LockedTesting.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.Ticker;
import io.writeguard.atomic.AtomicUpdates;
import io.writeguard.deadline.Deadlines;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.path.FieldPath;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedTesting.HeldBatch;
import io.writeguard.version.VersionPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
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
 * The hand-back for {@link LockedUpdater} (5758919, reviewed again at 9c87638): a leader whose
 * deadline cuts its batch's lock wait hands the others back and returns; what its thread keeps
 * afterwards (an interrupt set aside during the wait, the record of held locks), what the
 * callers handed back get, and the lock wait a caller handed back is left with. Where the
 * interleaving must be forced, the handed-back caller's thread is held up through the ticker,
 * in its look at its wait before it leads.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LockedHandBackTest {
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("LockedHandBack").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final AtomicReference<Thread> stallOn = new AtomicReference<>();
  private final CountDownLatch unstall = new CountDownLatch(1);
  private final Ticker ticker = LockedTesting.stallingTicker(stallOn, unstall);

  @AfterEach
  void stop() {
    unstall.countDown();
    pool.shutdownNow();
  }

  private void insert(String id) {
    real.insertOne(new Document("_id", id).append("n", 0L).append("log", List.of())
        .append("version", 0L));
  }

  private List<String> log(Object id) {
    return real.find(eq("_id", id)).first().getList("log", String.class);
  }

  /** Queues {@code call}, an update of {@code id}, and waits until it is queued. */
  private Future<UpdateOutcome> queue(LockedUpdater updater, String id,
      Callable<UpdateOutcome> call) {
    int before = updater.waiting(id);
    Future<UpdateOutcome> f = pool.submit(call);
    waitUntil(() -> updater.waiting(id) == before + 1);
    return f;
  }

  record Ending(Throwable failure, boolean interrupted, boolean recordsNothing) {}

  @Test
  void aLeaderInterruptedInTheLockWaitKeepsItsInterruptWhenItHandsTheOthersBack()
      throws Exception {
    insert("i");
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
    insert("w");
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
    insert("x");
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

  /**
   * lockWait 1 s. L (400 ms deadline of its own) leads [L, h]; another holder has the lock. At
   * L's deadline h is handed back with what is left of its lock wait (about 0.6 s). h's thread
   * leads only after that has run out, and the lock is free by then: h's batch (its own alone)
   * still gets one try at the lock, as any lock wait cut to nothing does, and is written.
   */
  @Test
  void aCallerHandedBackWhoseLockWaitRanOutMeanwhileStillGetsOneTry() throws Exception {
    insert("once");
    LocalLockService locks = LocalLockService.create();
    LockedUpdater updater = LockedUpdater.builder(real, locks).ticker(ticker)
        .lockWait(Duration.ofSeconds(1)).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("once", m),
        () -> updater.waiting("once"), c -> replaced(c, "first"));
    Future<UpdateOutcome> l = queue(updater, "once", () -> Deadlines.within(Duration.ofMillis(400),
        () -> updater.update("once", c -> replaced(c, "L"))));
    AtomicReference<Thread> hThread = new AtomicReference<>();
    AtomicReference<Thread> hRanOn = new AtomicReference<>();
    Future<UpdateOutcome> h = queue(updater, "once", () -> {
      hThread.set(Thread.currentThread());
      return updater.update("once", c -> {
        hRanOn.set(Thread.currentThread());
        return replaced(c, "h");
      });
    });
    Future<LockHandle> other =
        pool.submit(() -> locks.acquire("docs:once", Duration.ofSeconds(60)));
    waitUntil(() -> locks.waiting("docs:once") == 1);
    held.release();
    LockHandle otherHeld = other.get(60, TimeUnit.SECONDS);
    waitUntil(() -> locks.waiting("docs:once") == 1); // [L, h] waits; h's thread is parked
    stallOn.set(hThread.get());
    try {
      assertThat(failureOf(l)).isInstanceOf(LockTimeoutException.class);
      pause(1500); // h's lock wait (1 s from its batch's start) is over
    } finally {
      otherHeld.close();
    }
    unstall.countDown();

    assertThat(failureOf(h)).as("h, after its lock wait ran out, the lock free").isNull();
    assertThat(hRanOn.get()).as("h handed back, run by its own batch").isSameAs(hThread.get());
    assertThat(log("once")).containsExactly("first", "h");
  }

  /**
   * lockWait 1 s. L1 (400 ms deadline of its own) leads [L1, h] while another holder has the
   * lock: at L1's deadline h is handed back with what is left of its lock wait (about 0.6 s).
   * The lock is freed; before h's thread leads, L2 (1.2 s deadline of its own) leads [h, L2]
   * and gets the lock at once. h's write conflicts (a writer that bypasses the lock) and the
   * next backoff (2 s) would pass L2's deadline, so L2 is answered and h handed back between
   * rounds. Another holder then takes the lock for 0.6 s, after h's first lock wait would have
   * ended. h had the lock in between: its next wait is a new one (1 s), not the end of its
   * first (one try at a held lock).
   */
  @Test
  void aCallerHandedBackAfterItHadTheLockWaitsForItAfresh() throws Exception {
    insert("fresh");
    LocalLockService locks = LocalLockService.create();
    LockedUpdater updater = LockedUpdater.builder(real, locks).ticker(ticker)
        .retryPolicy(RetryPolicy.builder().maxAttempts(100).deadline(Duration.ofSeconds(30))
            .backoff(Duration.ofSeconds(2), Duration.ofSeconds(2)).build())
        .random(new java.util.random.RandomGenerator() { // full jitter at its top: 2 s
          @Override
          public long nextLong() {
            return -1L;
          }

          @Override
          public long nextLong(long origin, long bound) {
            return bound - 1;
          }
        })
        .lockWait(Duration.ofSeconds(1)).build();
    AtomicUpdates.Versioned atomic = AtomicUpdates.versioned(VersionPolicy.defaults());
    HeldBatch held = new HeldBatch(pool, m -> updater.update("fresh", m),
        () -> updater.waiting("fresh"), c -> replaced(c, "first"));
    Future<UpdateOutcome> l1 = queue(updater, "fresh", () -> Deadlines.within(
        Duration.ofMillis(400), () -> updater.update("fresh", c -> replaced(c, "L1"))));
    AtomicReference<Thread> hThread = new AtomicReference<>();
    AtomicBoolean hFirst = new AtomicBoolean(true);
    AtomicReference<Thread> hLastRanOn = new AtomicReference<>();
    Future<UpdateOutcome> h = queue(updater, "fresh", () -> {
      hThread.set(Thread.currentThread());
      return updater.update("fresh", c -> {
        if (hFirst.compareAndSet(true, false)) {
          real.updateOne(eq("_id", "fresh"), atomic.raising(
              AtomicUpdates.push(FieldPath.of("log"), "competitor")));
        }
        hLastRanOn.set(Thread.currentThread());
        return replaced(c, "h");
      });
    });
    Future<LockHandle> other =
        pool.submit(() -> locks.acquire("docs:fresh", Duration.ofSeconds(60)));
    waitUntil(() -> locks.waiting("docs:fresh") == 1);
    held.release();
    LockHandle otherHeld = other.get(60, TimeUnit.SECONDS);
    waitUntil(() -> locks.waiting("docs:fresh") == 1); // [L1, h] waits; h's thread is parked
    stallOn.set(hThread.get()); // until the end: h's thread does not lead meanwhile
    try {
      assertThat(failureOf(l1)).isInstanceOf(LockTimeoutException.class);
    } finally {
      otherHeld.close();
    }
    Future<UpdateOutcome> l2 = pool.submit(() -> Deadlines.within(Duration.ofMillis(1200),
        () -> updater.update("fresh", c -> Mutation.none())));
    failureOf(l2); // answered, its deadline within the backoff: h handed back
    LockHandle again = locks.acquire("docs:fresh", Duration.ofSeconds(10)); // L2's batch is out
    pause(700); // h's first lock wait is surely over
    unstall.countDown();
    waitUntil(() -> h.isDone() || locks.waiting("docs:fresh") == 1); // h waits for it again
    pause(600);
    again.close();

    assertThat(failureOf(h)).as("h, 0.6 s into its new lock wait of 1 s").isNull();
    assertThat(hLastRanOn.get()).as("h handed back, run by its own batch").isSameAs(hThread.get());
    assertThat(log("fresh")).containsExactly("first", "competitor", "h");
  }
}
