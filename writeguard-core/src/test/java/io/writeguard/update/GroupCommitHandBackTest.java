package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.update.LockedTesting.pause;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.Ticker;
import io.writeguard.atomic.AtomicUpdates;
import io.writeguard.deadline.Deadlines;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.path.FieldPath;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hand-back in group commit (5758919, reviewed again at 9c87638): a batch's leader
 * answered before the rest of its batch hands the callers left back to the queue. Through
 * {@link VersionedUpdater}: what becomes of a caller handed back, and a leader whose own request
 * is not in the batch it runs. Through both updaters: across hand-backs (short own deadlines, a
 * competing writer, a lock taken by another holder now and then), each caller gets exactly one
 * terminal event, never more attempts than {@code maxAttempts} in all, and each success is
 * written exactly once, each failure that wrote nothing not at all.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GroupCommitHandBackTest {
  private static final int MAX_ATTEMPTS = 3;
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("GroupCommitHandBack").getCollection("docs");
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
    VersionedInsert.insertOne(real, VersionPolicy.defaults(),
        new Document("_id", id).append("n", 0L).append("log", List.of()));
  }

  private static Mutation increment(Document current, String mark) {
    return Mutation.update(Updates.combine(
        Updates.set("n", current.getLong("n") + 1), Updates.push("log", mark)));
  }

  /**
   * The leader b (2 s deadline of its own) writes nothing, so it is answered in the first round
   * of [b, c]; c's write conflicts (a competing writer) after b's deadline, and c is handed back
   * after 1 attempt, while d and e queued during that round. c goes back to the head of the
   * queue, ahead of them (FIFO: it queued first), so the next batch (at most 2) is [c, d] and
   * then [e]; c's outcome counts both its attempts. (Found in review: handed back to the tail,
   * c ran after [d, e], and, withdrawn there at its deadline, was reported as exhausted after 0
   * attempts; that report is checked in KeyedCombinerHandBackTest.)
   */
  @Test
  void aCallerHandedBackGoesAheadOfLaterCallersWithTheAttemptsItMade() throws Exception {
    insert("tail");
    List<Integer> batches = new CopyOnWriteArrayList<>();
    VersionedUpdater updater = VersionedUpdater.builder(real)
        .retryPolicy(RetryPolicy.builder().maxAttempts(100).deadline(Duration.ofSeconds(30))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(5)).build())
        .maxBatchSize(2)
        .listener(new WriteGuardListener() {
          @Override
          public void onBatch(OperationScope scope, Object key, int size) {
            batches.add(size);
          }
        })
        .build();
    AtomicUpdates.Versioned atomic = AtomicUpdates.versioned(VersionPolicy.defaults());
    HeldBatch held = new HeldBatch(pool, updater, "tail", current -> increment(current, "first"));
    long bStart = System.nanoTime();
    Future<UpdateOutcome> b = held.queue(() -> Deadlines.within(Duration.ofSeconds(2),
        () -> updater.update("tail", current -> Mutation.none())));
    AtomicBoolean competed = new AtomicBoolean();
    Future<UpdateOutcome> c = held.queue(current -> {
      if (competed.compareAndSet(false, true)) { // c's first round: d and e queue meanwhile
        HeldBatch.waitUntil(() -> updater.waiting("tail") == 2
            && System.nanoTime() - bStart > TimeUnit.MILLISECONDS.toNanos(2300)); // b's passed
        real.updateOne(eq("_id", "tail"), atomic.raising(Updates.combine(
            AtomicUpdates.inc(FieldPath.of("n"), 1L),
            AtomicUpdates.push(FieldPath.of("log"), "competitor"))));
      }
      return increment(current, "c");
    });
    held.release();
    HeldBatch.waitUntil(() -> updater.waiting("tail") == 0 && competed.get()); // [b, c] runs
    Future<UpdateOutcome> d = held.queue(current -> increment(current, "d"));
    Future<UpdateOutcome> e = held.queue(current -> increment(current, "e"));

    assertThat(b.get(60, TimeUnit.SECONDS).written()).isFalse();
    UpdateOutcome cOutcome = c.get(60, TimeUnit.SECONDS);
    d.get(60, TimeUnit.SECONDS);
    e.get(60, TimeUnit.SECONDS);
    assertThat(batches).as("[first], [b, c], c handed back: [c, d], [e]")
        .containsExactly(1, 2, 2, 1);
    assertThat(cOutcome.attempts()).as("c's attempts, one in each batch").isEqualTo(2);
    assertThat(real.find(eq("_id", "tail")).first().getList("log", String.class))
        .containsExactly("first", "competitor", "c", "d", "e");
  }

  /**
   * The leader L (1 s deadline of its own) writes nothing, so it is answered in the first
   * round of [L, x1, x2]. x1's and x2's updates are not modelled in memory ($push with $slice),
   * so each is sent alone, in a round of its own: nothing conflicts and nothing is retried.
   * x1's mutator takes past L's deadline. Once the round in flight is over, L's thread must
   * return rather than run x2's round (docs/deadlines.md: the leader's thread waits at most for
   * a round in flight): x2's last round runs on another thread. (Found in review: a hand-back
   * came only after a retry, so L's thread ran every later round.)
   */
  @Test
  void aLeaderAnsweredInTheFirstRoundDoesNotRunTheLaterRoundsOfItsFollowers() throws Exception {
    insert("rounds");
    VersionedUpdater updater = VersionedUpdater.builder(real)
        .retryPolicy(RetryPolicy.builder().maxAttempts(100).deadline(Duration.ofSeconds(60))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(5)).build())
        .build();
    HeldBatch held = new HeldBatch(pool, updater, "rounds",
        current -> increment(current, "first"));
    AtomicReference<Thread> leadThread = new AtomicReference<>();
    Future<UpdateOutcome> lead = held.queue(() -> {
      leadThread.set(Thread.currentThread());
      return Deadlines.within(Duration.ofSeconds(1),
          () -> updater.update("rounds", current -> Mutation.none()));
    });
    AtomicBoolean x1Slow = new AtomicBoolean();
    Future<UpdateOutcome> x1 = held.queue(current -> {
      if (x1Slow.compareAndSet(false, true)) {
        long t0 = System.nanoTime(); // past L's 1 s deadline
        HeldBatch.waitUntil(() -> System.nanoTime() - t0 > TimeUnit.MILLISECONDS.toNanos(1500));
      }
      return pushAlone("x1");
    });
    AtomicReference<Thread> x2LastRanOn = new AtomicReference<>();
    Future<UpdateOutcome> x2 = held.queue(current -> {
      x2LastRanOn.set(Thread.currentThread());
      return pushAlone("x2");
    });
    held.release();

    assertThat(lead.get(60, TimeUnit.SECONDS).written()).isFalse();
    assertThat(x1.get(60, TimeUnit.SECONDS).written()).isTrue();
    assertThat(x2.get(60, TimeUnit.SECONDS).written()).isTrue();
    assertThat(real.find(eq("_id", "rounds")).first().getList("log", String.class))
        .containsExactly("first", "x1", "x2");
    assertThat(x2LastRanOn.get()).as("x2's last round, after L's deadline")
        .isNotSameAs(leadThread.get());
  }

  /**
   * Exact totals under hand-backs: callers with short deadlines of their own lead batches that
   * a competing writer makes conflict, so leaders are given up and hand the rest back. Every
   * caller is answered; each one answered with success is written exactly once, each one
   * answered with a failure that says nothing was written is not written at all.
   */
  @Test
  void everyCallerIsAnsweredAndWrittenOnceAtMostAcrossHandBacks() throws Exception {
    insert("totals");
    VersionedUpdater updater = VersionedUpdater.builder(real)
        .retryPolicy(RetryPolicy.builder().maxAttempts(50).deadline(Duration.ofSeconds(20))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(10)).build())
        .build();
    AtomicUpdates.Versioned atomic = AtomicUpdates.versioned(VersionPolicy.defaults());
    AtomicBoolean competing = new AtomicBoolean(true);
    Future<Integer> competitor = pool.submit(() -> {
      int n = 0;
      while (competing.get() && n < 2000) {
        real.updateOne(eq("_id", "totals"), atomic.raising(
            AtomicUpdates.push(FieldPath.of("log"), "competitor")));
        n++;
        Thread.sleep(2);
      }
      return n;
    });
    int threads = 6;
    int each = 20;
    List<Future<List<String[]>>> workers = new java.util.ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      workers.add(pool.submit(() -> {
        List<String[]> outcomes = new java.util.ArrayList<>();
        java.util.Random random = new java.util.Random(thread);
        for (int i = 0; i < each; i++) {
          String mark = thread + "-" + i;
          Duration own = Duration.ofMillis(random.nextBoolean() ? 20 + random.nextInt(80) : 5000);
          String outcome;
          try {
            UpdateOutcome o = Deadlines.within(own,
                () -> updater.update("totals", current -> increment(current, mark)));
            outcome = o.written() ? "written" : "none";
          } catch (WriteOutcomeUnknownException e) {
            outcome = "unknown";
          } catch (RuntimeException e) {
            outcome = "failed " + e.getClass().getSimpleName();
          }
          outcomes.add(new String[] {mark, outcome});
        }
        return outcomes;
      }));
    }
    List<String[]> all = new java.util.ArrayList<>();
    for (Future<List<String[]>> w : workers) {
      all.addAll(w.get(100, TimeUnit.SECONDS));
    }
    competing.set(false);
    competitor.get(60, TimeUnit.SECONDS);

    List<String> log = real.find(eq("_id", "totals")).first().getList("log", String.class);
    assertThat(all).hasSize(threads * each);
    java.util.Map<String, Long> times = new java.util.HashMap<>();
    log.forEach(m -> times.merge(m, 1L, Long::sum));
    for (String[] o : all) {
      long written = times.getOrDefault(o[0], 0L);
      if (o[1].equals("written")) {
        assertThat(written).as("%s answered %s", o[0], o[1]).isEqualTo(1);
      } else if (o[1].equals("unknown")) {
        assertThat(written).as("%s answered %s", o[0], o[1]).isLessThanOrEqualTo(1);
      } else {
        assertThat(written).as("%s answered %s", o[0], o[1]).isZero();
      }
    }
    long n = real.find(eq("_id", "totals")).first().getLong("n");
    assertThat(n).as("n counts the callers' increments written").isEqualTo(
        log.stream().filter(m -> !m.equals("competitor")).count());
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

  // Totals across hand-backs (second review, 9c87638), through both updaters: see the class
  // comment.

  /** Terminal events and the highest attempt number told. */
  static final class Counts implements WriteGuardListener {
    final AtomicInteger terminal = new AtomicInteger();
    final AtomicInteger maxAttempt = new AtomicInteger();

    @Override
    public void onAttempt(OperationScope scope, Object key, int attempt) {
      maxAttempt.accumulateAndGet(attempt, Math::max);
    }

    @Override
    public void onSuccess(OperationScope scope, Object key, int attempts, Duration elapsed) {
      terminal.incrementAndGet();
      maxAttempt.accumulateAndGet(attempts, Math::max);
    }

    @Override
    public void onExhausted(OperationScope scope, Object key, int attempts, Duration elapsed) {
      terminal.incrementAndGet();
      maxAttempt.accumulateAndGet(attempts, Math::max);
    }

    @Override
    public void onFailure(OperationScope scope, Object key, Throwable error) {
      terminal.incrementAndGet();
    }
  }

  private static RetryPolicy policy() {
    return RetryPolicy.builder().maxAttempts(MAX_ATTEMPTS).deadline(Duration.ofSeconds(10))
        .backoff(Duration.ofMillis(1), Duration.ofMillis(8)).build();
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void versionedUpdater() throws Exception {
    Counts counts = new Counts();
    // Blind pacing, so that every attempt counts and MAX_ATTEMPTS bounds them all (paced, a
    // round lost to the competitor's write is bounded by the deadline instead).
    VersionedUpdater updater = VersionedUpdater.builder(real).retryPolicy(policy())
        .maxBatchSize(3).listener(counts).contentionPacing(false).build();
    run("v", counts, (id, m) -> updater.update(id, m), null);
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void lockedUpdater() throws Exception {
    Counts counts = new Counts();
    LocalLockService locks = LocalLockService.create();
    LockedUpdater updater = LockedUpdater.builder(real, locks).retryPolicy(policy())
        .lockWait(Duration.ofMillis(300)).maxBatchSize(3).listener(counts).build();
    run("l", counts, (id, m) -> updater.update(id, m), locks);
  }

  private void run(String id, Counts counts, BiFunction<String, Mutator, UpdateOutcome> update,
      LocalLockService locks) throws Exception {
    insert(id);
    AtomicUpdates.Versioned atomic = AtomicUpdates.versioned(VersionPolicy.defaults());
    AtomicBoolean competing = new AtomicBoolean(true);
    Future<?> competitor = pool.submit(() -> {
      Random random = new Random(42);
      for (int n = 0; competing.get() && n < 3000; n++) {
        real.updateOne(eq("_id", id), atomic.raising(
            AtomicUpdates.push(FieldPath.of("log"), "competitor")));
        if (locks != null && random.nextInt(8) == 0) {
          try (LockHandle h = locks.acquire("docs:" + id, Duration.ofSeconds(5))) {
            Thread.sleep(random.nextInt(60));
          }
        }
        Thread.sleep(2);
      }
      return null;
    });
    int threads = 6;
    int each = 25;
    List<Future<List<String[]>>> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      workers.add(pool.submit(() -> {
        List<String[]> outcomes = new ArrayList<>();
        Random random = new Random(thread);
        for (int i = 0; i < each; i++) {
          String mark = thread + "-" + i;
          Duration own = Duration.ofMillis(random.nextBoolean() ? 10 + random.nextInt(90) : 5000);
          String outcome;
          int attempts = 0;
          try {
            UpdateOutcome o = Deadlines.within(own,
                () -> update.apply(id, current -> increment(current, mark)));
            outcome = o.written() ? "written" : "none";
            attempts = o.attempts();
          } catch (WriteOutcomeUnknownException e) {
            outcome = "unknown";
          } catch (RetriesExhaustedException e) {
            outcome = "exhausted";
            attempts = e.attempts();
          } catch (RuntimeException e) {
            outcome = "failed " + e.getClass().getSimpleName();
          }
          outcomes.add(new String[] {mark, outcome, Integer.toString(attempts)});
        }
        return outcomes;
      }));
    }
    List<String[]> all = new ArrayList<>();
    try {
      for (Future<List<String[]>> w : workers) {
        all.addAll(w.get(150, TimeUnit.SECONDS));
      }
    } finally {
      competing.set(false);
    }
    competitor.get(60, TimeUnit.SECONDS);

    List<String> log = real.find(eq("_id", id)).first().getList("log", String.class);
    Map<String, Long> times = new HashMap<>();
    log.forEach(m -> times.merge(m, 1L, Long::sum));
    assertThat(all).hasSize(threads * each);
    for (String[] o : all) {
      long written = times.getOrDefault(o[0], 0L);
      assertThat(Integer.parseInt(o[2])).as("%s answered %s", o[0], o[1])
          .isLessThanOrEqualTo(MAX_ATTEMPTS);
      if (o[1].equals("written")) {
        assertThat(written).as("%s answered %s", o[0], o[1]).isEqualTo(1);
      } else if (o[1].equals("unknown")) {
        assertThat(written).as("%s answered %s", o[0], o[1]).isLessThanOrEqualTo(1);
      } else {
        assertThat(written).as("%s answered %s", o[0], o[1]).isZero();
      }
    }
    assertThat(counts.terminal.get()).as("one terminal event per call").isEqualTo(threads * each);
    assertThat(counts.maxAttempt.get()).isLessThanOrEqualTo(MAX_ATTEMPTS);
    long n = real.find(eq("_id", id)).first().getLong("n");
    assertThat(n).isEqualTo(log.stream().filter(m -> !m.equals("competitor")).count());
  }

  /** A $push that the in-memory model does not cover ($slice), so it is always sent alone. */
  private static Mutation pushAlone(String mark) {
    return Mutation.update(Updates.pushEach("log", List.of(mark),
        new com.mongodb.client.model.PushOptions().slice(-100)));
  }
}
