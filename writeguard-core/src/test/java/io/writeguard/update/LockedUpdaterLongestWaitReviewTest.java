package io.writeguard.update;

import static io.writeguard.update.LockedTesting.acquiringThrough;
import static io.writeguard.update.LockedTesting.failureOf;
import static io.writeguard.update.LockedTesting.replaced;
import static io.writeguard.update.LockedTesting.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.writeguard.internal.Deadline;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedTesting.HeldBatch;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Review of "a lock wait too long to add to the retry deadline waits as if forever" (4634ed8):
 * the longest lock wait a {@link Duration} holds ({@code ChronoUnit.FOREVER}) must reach no
 * arithmetic that overflows on any path, including the failure paths.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockedUpdaterLongestWaitReviewTest {
  private static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();

  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("LockedLongestWait").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final LockedTesting.TerminalEvents listener = new LockedTesting.TerminalEvents();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  /**
   * A batch leader interrupted while it waits for the lock resumes the wait (its batch holds
   * other callers' updates); when that resumed wait times out (here at the callers' deadline,
   * as for updates made inside another call's budget), LockedUpdater reports the timeout
   * "against the whole lock wait" by building a new LockTimeoutException with lockWait, whose
   * message takes {@code lockWait.toMillis()}: with the longest lock wait that overflows, and
   * every caller of the batch gets an ArithmeticException ("long overflow") instead of the
   * lock timeout, with no failure event.
   */
  @Test
  void aResumedWaitThatTimesOutUnderTheLongestLockWaitIsALockTimeout() throws Exception {
    real.insertOne(new Document("_id", "d").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    LocalLockService local = LocalLockService.create();
    AtomicInteger acquires = new AtomicInteger();
    AtomicReference<Thread> lastAcquirer = new AtomicReference<>();
    LockService locks = acquiringThrough(local, (key, waitTimeout) -> {
      lastAcquirer.set(Thread.currentThread());
      acquires.incrementAndGet();
      return local.acquire(key, waitTimeout);
    });
    LockedUpdater updater = LockedUpdater.builder(real, locks).listener(listener)
        .lockWait(FOREVER).build();
    // Every update runs inside a budget of 3 s, as an update made from inside another call is.
    HeldBatch held = new HeldBatch(pool,
        m -> Deadline.within(Deadline.after(Duration.ofSeconds(3)), () -> updater.update("d", m)),
        () -> updater.waiting("d"), c -> replaced(c, "first"));
    Future<UpdateOutcome> a = held.queue(c -> replaced(c, "a"));
    Future<UpdateOutcome> b = held.queue(c -> replaced(c, "b"));
    // Another holder, queued for the lock behind the first update (FIFO): it gets it next.
    CountDownLatch end = new CountDownLatch(1);
    pool.submit(() -> {
      try (LockHandle other = local.acquire("docs:d", Duration.ofSeconds(30))) {
        end.await();
      }
      return null;
    });
    waitUntil(() -> local.waiting("docs:d") == 1);
    held.release();
    // The next leader takes [a, b] and waits for the lock: interrupt it there.
    waitUntil(() -> acquires.get() == 2 && local.waiting("docs:d") == 1);
    lastAcquirer.get().interrupt();

    Throwable aFailure = failureOf(a);
    Throwable bFailure = failureOf(b);
    end.countDown();
    assertThat(aFailure).as("a").isInstanceOf(LockTimeoutException.class);
    assertThat(bFailure).as("b").isInstanceOf(LockTimeoutException.class);
    assertThat(((LockTimeoutException) aFailure).timeout()).isEqualTo(FOREVER);
    assertThat(listener.events).as("each caller's last event")
        .containsExactly("success", "failure:LockTimeoutException",
            "failure:LockTimeoutException");
  }
}
