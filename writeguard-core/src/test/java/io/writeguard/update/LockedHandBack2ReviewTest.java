package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.update.LockedTesting.failureOf;
import static io.writeguard.update.LockedTesting.replaced;
import static io.writeguard.update.LockedTesting.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
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
 * Second review of the hand-back (9c87638) for {@link LockedUpdater}: the lock wait a caller
 * handed back is left with. The handed-back caller's thread is held up (through the ticker, in
 * its look at its wait before it leads) to force the interleaving.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LockedHandBack2ReviewTest {
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("LockedHandBack2Review").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final AtomicReference<Thread> stallOn = new AtomicReference<>();
  private final CountDownLatch unstall = new CountDownLatch(1);
  private final Ticker ticker = () -> {
    Thread me = Thread.currentThread();
    if (me == stallOn.get() && stallOn.compareAndSet(me, null)) {
      LockedTesting.awaitAtMost(unstall, Duration.ofSeconds(20));
    }
    return System.nanoTime();
  };

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
      java.util.concurrent.Callable<UpdateOutcome> call) {
    int before = updater.waiting(id);
    Future<UpdateOutcome> f = pool.submit(call);
    waitUntil(() -> updater.waiting(id) == before + 1);
    return f;
  }

  private static void pause(long millis) {
    long t0 = System.nanoTime();
    waitUntil(() -> System.nanoTime() - t0 > TimeUnit.MILLISECONDS.toNanos(millis));
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
