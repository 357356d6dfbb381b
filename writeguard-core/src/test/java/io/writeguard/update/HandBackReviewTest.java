package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.atomic.AtomicUpdates;
import io.writeguard.deadline.Deadlines;
import io.writeguard.path.FieldPath;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Review of 5758919 (a batch's leader hands the callers left back to the queue) through
 * {@link VersionedUpdater}: what becomes of a caller handed back.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HandBackReviewTest {
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("HandBackReview").getCollection("docs");
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

  /**
   * The leader b writes nothing, so it is answered in the first round of [b, c]; c's write
   * conflicts (a competing writer), and c is handed back, after 1 attempt, to the tail of the
   * queue, behind d and e, which queued during that round. d's batch is slow (its mutator
   * holds until c is answered, or 8 s after c queued). Whichever thread leads next, c's caller
   * must be answered by its own 3 s deadline, with an answer that counts the attempt it made.
   * Instead: when c's thread leads (it usually wins the free slot), it runs [d, e] first, on
   * its thread, and c is answered only once d's hold ends; when d leads, c is withdrawn from
   * the queue at its deadline and reported as exhausted after 0 attempts.
   */
  @Test
  void aCallerHandedBackBehindASlowBatchIsAnsweredByItsDeadlineWithTheAttemptsItMade()
      throws Exception {
    insert("tail");
    RecordingListener events = new RecordingListener();
    VersionedUpdater updater = VersionedUpdater.builder(real)
        .retryPolicy(RetryPolicy.builder().maxAttempts(100).deadline(Duration.ofSeconds(3))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(5)).build())
        .maxBatchSize(2)
        .listener(events)
        .build();
    AtomicUpdates.Versioned atomic = AtomicUpdates.versioned(VersionPolicy.defaults());
    HeldBatch held = new HeldBatch(pool, updater, "tail", current -> increment(current, "first"));
    Future<UpdateOutcome> b = held.queue(current -> Mutation.none());
    AtomicBoolean competed = new AtomicBoolean();
    long cQueued = System.nanoTime();
    Future<UpdateOutcome> c = held.queue(current -> {
      if (competed.compareAndSet(false, true)) { // c's first round: d and e queue meanwhile
        HeldBatch.waitUntil(() -> updater.waiting("tail") == 2);
        real.updateOne(eq("_id", "tail"), atomic.raising(Updates.combine(
            AtomicUpdates.inc(FieldPath.of("n"), 1L),
            AtomicUpdates.push(FieldPath.of("log"), "competitor"))));
      }
      return increment(current, "c");
    });
    held.release();
    HeldBatch.waitUntil(() -> updater.waiting("tail") == 0 && competed.get()); // [b, c] runs
    AtomicBoolean cDoneWhenDWentOn = new AtomicBoolean();
    AtomicBoolean dHeld = new AtomicBoolean();
    Future<UpdateOutcome> d = held.queue(current -> {
      if (dHeld.compareAndSet(false, true)) {
        HeldBatch.waitUntil(() -> c.isDone()
            || System.nanoTime() - cQueued > TimeUnit.SECONDS.toNanos(8));
        cDoneWhenDWentOn.set(c.isDone());
      }
      return increment(current, "d");
    });
    Future<UpdateOutcome> e = held.queue(current -> increment(current, "e"));

    assertThat(b.get(60, TimeUnit.SECONDS).written()).isFalse();
    Throwable cFailure = failureOf(c);
    failureOf(d);
    failureOf(e);
    assertThat(cDoneWhenDWentOn).as("c answered (3 s deadline) before d's hold ended (8 s);"
        + " c got %s", cFailure == null ? "success" : cFailure).isTrue();
    if (cFailure instanceof RetriesExhaustedException out) {
      assertThat(out.attempts()).as("c's attempts: 1 made before it was handed back; %s",
          events.events).isGreaterThanOrEqualTo(1);
    }
  }

  /**
   * The leader L (1 s deadline of its own) writes nothing, so it is answered in the first
   * round of [L, x1, x2]. x1's and x2's updates are not modelled in memory ($push with $slice),
   * so each is sent alone, in a round of its own: nothing conflicts, so nothing is retried and
   * nothing is handed back, and L's thread runs x2's round too. docs/deadlines.md promises the
   * leader's thread returns by its deadline, waiting at most for "a round in flight"; here it
   * waits for every later round (x2's mutator holds until L is answered, or 5 s).
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
    Future<UpdateOutcome> lead = held.queue(() -> Deadlines.within(Duration.ofSeconds(1),
        () -> updater.update("rounds", current -> Mutation.none())));
    Future<UpdateOutcome> x1 = held.queue(current -> pushAlone("x1"));
    AtomicBoolean leadDoneWhenX2Ran = new AtomicBoolean();
    AtomicBoolean x2Held = new AtomicBoolean();
    long start = System.nanoTime();
    Future<UpdateOutcome> x2 = held.queue(current -> {
      if (x2Held.compareAndSet(false, true)) {
        HeldBatch.waitUntil(() -> lead.isDone()
            || System.nanoTime() - start > TimeUnit.SECONDS.toNanos(5));
        leadDoneWhenX2Ran.set(lead.isDone());
      }
      return pushAlone("x2");
    });
    held.release();

    assertThat(lead.get(60, TimeUnit.SECONDS).written()).isFalse();
    assertThat(x1.get(60, TimeUnit.SECONDS).written()).isTrue();
    assertThat(x2.get(60, TimeUnit.SECONDS).written()).isTrue();
    assertThat(real.find(eq("_id", "rounds")).first().getList("log", String.class))
        .containsExactly("first", "x1", "x2");
    assertThat(leadDoneWhenX2Ran)
        .as("L (answered in round 1, 1 s deadline) had returned before x2's round ran")
        .isTrue();
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

  /** A $push that the in-memory model does not cover ($slice), so it is always sent alone. */
  private static Mutation pushAlone(String mark) {
    return Mutation.update(Updates.pushEach("log", List.of(mark),
        new com.mongodb.client.model.PushOptions().slice(-100)));
  }

  private static Throwable failureOf(Future<?> f) {
    try {
      f.get(60, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
