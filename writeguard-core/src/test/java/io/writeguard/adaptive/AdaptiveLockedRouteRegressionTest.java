package io.writeguard.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.testing.FakeTime;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedTesting;
import io.writeguard.update.Mutation;
import io.writeguard.update.Mutator;
import io.writeguard.update.UpdateOutcome;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Regression (issue 17): the adaptive updater's locked route was a second copy of
 * {@code LockedUpdater}'s batch under a lock, with two bugs {@code LockedUpdater} had fixed: the
 * leader interrupted while waiting for the lock failed every caller of its batch, and a queued
 * caller that timed out got {@code CombineTimeoutException} and no terminal event.
 */
class AdaptiveLockedRouteRegressionTest {
  private static final long BOUND_SECONDS = 60;
  private final MongoCollection<Document> docs =
      TestMongo.freshDatabase("AdaptiveLockedRoute").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final FakeTime routerTime = new FakeTime(); // never advances: a hot key stays locked

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private final LockedTesting.TerminalEvents terminalEvents =
      new LockedTesting.TerminalEvents();
  private final List<String> terminal = terminalEvents.events;

  /** An adaptive updater whose key "d" is on the locked route (one conflict made it hot). */
  private AdaptiveUpdater hot(LockService locks, FakeTime time) {
    docs.insertOne(new Document("_id", "d").append("version", 0L).append("log", List.of()));
    VersionedUpdater versioned = VersionedUpdater.builder(docs).listener(terminalEvents)
        .ticker(time.ticker()).build();
    AdaptiveUpdater updater = AdaptiveUpdater.builder(versioned, locks)
        .policy(AdaptivePolicy.builder().minAttempts(1).threshold(0.0).build())
        .lockWait(Duration.ofSeconds(30))
        .ticker(routerTime.ticker())
        .build();
    AtomicBoolean competed = new AtomicBoolean();
    updater.update("d", current -> {
      if (competed.compareAndSet(false, true)) {
        docs.updateOne(Filters.eq("_id", "d"), Updates.inc("version", 1L));
      }
      return appended(current, "hot");
    });
    assertThat(updater.routeOf("d")).isEqualTo(Route.LOCKED);
    terminal.clear();
    return updater;
  }

  private static Mutation appended(Document current, String mark) {
    return Mutation.update(Updates.push("log", mark));
  }

  /** The first locked update, held inside its mutator (so under the lock) until released. */
  private Future<UpdateOutcome> held(AdaptiveUpdater updater, CountDownLatch inside,
      CountDownLatch release) {
    Future<UpdateOutcome> f = pool.submit(() -> updater.update("d", current -> {
      inside.countDown();
      await(release);
      return appended(current, "first");
    }));
    await(inside);
    return f;
  }

  private Future<UpdateOutcome> queued(AdaptiveUpdater updater, Mutator mutator,
      AtomicReference<Thread> thread, AtomicBoolean flagAfter) {
    int before = updater.waiting("d");
    Future<UpdateOutcome> f = pool.submit(() -> {
      thread.set(Thread.currentThread());
      try {
        return updater.update("d", mutator);
      } finally {
        flagAfter.set(Thread.interrupted());
      }
    });
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
    while (updater.waiting("d") != before + 1) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not queued in " + BOUND_SECONDS + "s");
      }
      Thread.onSpinWait();
    }
    return f;
  }

  @Test
  void theLeaderInterruptedWhileWaitingForTheLockFailsNobodyOfItsBatch() throws Exception {
    CountDownLatch secondWaits = new CountDownLatch(1);
    LocalLockService local = LocalLockService.create();
    AtomicInteger acquires = new AtomicInteger();
    // The second acquire waits until its thread is interrupted, as a lock wait ends on one.
    LockService locks = new LockService() {
      @Override
      public LockHandle acquire(String key, Duration waitTimeout) {
        if (acquires.incrementAndGet() == 2) {
          secondWaits.countDown();
          try {
            new CountDownLatch(1).await();
          } catch (InterruptedException e) {
            throw new WriteGuardInterruptedException("waiting for lock '" + key + "' (test)", e);
          }
        }
        return local.acquire(key, waitTimeout);
      }

      @Override
      public Optional<LockHandle> tryAcquire(String key) {
        return local.tryAcquire(key);
      }

      @Override
      public String backend() {
        return "scripted";
      }
    };
    AdaptiveUpdater updater = hot(locks, new FakeTime());
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Future<UpdateOutcome> first = held(updater, inside, release);
    AtomicReference<Thread> leaderThread = new AtomicReference<>();
    AtomicBoolean leaderFlag = new AtomicBoolean();
    Future<UpdateOutcome> leader = queued(updater, c -> appended(c, "leader"), leaderThread,
        leaderFlag);
    Future<UpdateOutcome> other = queued(updater, c -> appended(c, "other"),
        new AtomicReference<>(), new AtomicBoolean());
    release.countDown();
    first.get(BOUND_SECONDS, TimeUnit.SECONDS);
    await(secondWaits); // the next leader took [leader, other] and waits for the lock
    leaderThread.get().interrupt();

    assertThat(failureOf(other)).as("a caller never interrupted").isNull();
    assertThat(failureOf(leader)).as("the interrupted leader's own update").isNull();
    assertThat(leaderFlag).as("the leader's interrupt flag, restored").isTrue();
    assertThat(docs.find(Filters.eq("_id", "d")).first().getList("log", String.class))
        .containsExactly("hot", "first", "leader", "other");
  }

  @Test
  void aQueuedCallerThatTimesOutGetsALockTimeoutAndOneTerminalEvent() throws Exception {
    FakeTime time = new FakeTime(); // the updater's clock: deadlines and the queue's wait
    AdaptiveUpdater updater = hot(LocalLockService.create(), time);
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Future<UpdateOutcome> first = held(updater, inside, release);
    AtomicReference<Thread> lateThread = new AtomicReference<>();
    Future<UpdateOutcome> late = queued(updater, c -> appended(c, "late"), lateThread,
        new AtomicBoolean());
    // Past the queue's bound (the lock wait plus the retry deadline); woken, it sees so.
    time.advance(Duration.ofHours(1));
    LockSupport.unpark(lateThread.get());

    Throwable failure = failureOf(late);
    release.countDown();
    failureOf(first);
    assertThat(failure).isInstanceOf(LockTimeoutException.class);
    assertThat(terminal).as("the timed-out caller's terminal event")
        .contains("failure:LockTimeoutException");
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(BOUND_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError("latch not released in " + BOUND_SECONDS + "s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static Throwable failureOf(Future<?> f) {
    try {
      f.get(BOUND_SECONDS, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
