package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.update.LockedTesting.failureOf;
import static io.writeguard.update.LockedTesting.failureWithin;
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
 * Review of issue 21 in group commit: a caller's deadline (set with {@link Deadlines#within})
 * is its own. The leader's must not fail the other callers of its batch, and a follower's must
 * bound what it waits for, as it does for a lone call.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GroupCommitDeadlineReviewTest {
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("GroupCommitDeadline").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private VersionedUpdater updater() {
    return VersionedUpdater.builder(real)
        .retryPolicy(RetryPolicy.builder().maxAttempts(100).deadline(Duration.ofSeconds(60))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(20)).build())
        .build();
  }

  private void insert(String id) {
    VersionedInsert.insertOne(real, VersionPolicy.defaults(),
        new Document("_id", id).append("n", 0L).append("log", List.of()));
  }

  private static Mutation increment(Document current, String mark) {
    return Mutation.update(Updates.combine(
        Updates.set("n", current.getLong("n") + 1), Updates.push("log", mark)));
  }

  /** The first caller of {@code id} held inside its batch; it marks "first" once released. */
  private HeldBatch held(VersionedUpdater updater, String id) throws Exception {
    return new HeldBatch(pool, updater, id, current -> increment(current, "first"));
  }

  @Test
  void aLeadersPassedDeadlineDoesNotExhaustAFollowerThatHasTimeLeft() throws Exception {
    insert("lead");
    VersionedUpdater updater = updater();
    AtomicUpdates.Versioned atomic = AtomicUpdates.versioned(VersionPolicy.defaults());
    HeldBatch held = held(updater, "lead");
    // b leads the next batch [b, c] under a deadline of its own that passes in its mutator;
    // b writes nothing, so it is answered before anyone writes.
    Future<UpdateOutcome> b = held.queue(() -> Deadlines.within(
        Duration.ofMillis(300), () -> updater.update("lead", current -> {
          HeldBatch.waitUntil(() -> Deadlines.left().orElseThrow().isZero());
          return Mutation.none();
        })));
    // c has 60 s; a competing writer makes its first write conflict.
    AtomicBoolean competed = new AtomicBoolean();
    Future<UpdateOutcome> c = held.queue(current -> {
      if (competed.compareAndSet(false, true)) {
        real.updateOne(eq("_id", "lead"), atomic.raising(Updates.combine(
            AtomicUpdates.inc(FieldPath.of("n"), 1L),
            AtomicUpdates.push(FieldPath.of("log"), "competitor"))));
      }
      return increment(current, "c");
    });
    held.release();

    assertThat(b.get(60, TimeUnit.SECONDS).written()).isFalse();
    assertThat(failureOf(c)).as("c's deadline is 60 s away; b's is not c's").isNull();
    assertThat(real.find(eq("_id", "lead")).first().getList("log", String.class))
        .containsExactly("first", "competitor", "c");
  }

  // Review of 97c4b59 (the round): the test above passes only while c's mutator and write fit
  // in the grace after b's deadline. The round's write is bounded by the earliest deadline of
  // every caller the round started with, also of b, answered before anyone wrote: a slow
  // mutator of c (or a loaded machine) makes c's write time out on b's deadline.
  @Test
  void aCallerAnsweredBeforeTheWriteLendsTheWriteNoneOfItsDeadline() throws Exception {
    insert("slow");
    VersionedUpdater updater = updater();
    HeldBatch held = held(updater, "slow");
    Future<UpdateOutcome> b = held.queue(() -> Deadlines.within(
        Duration.ofMillis(300), () -> updater.update("slow", current -> {
          HeldBatch.waitUntil(() -> Deadlines.left().orElseThrow().isZero());
          return Mutation.none();
        })));
    Future<UpdateOutcome> c = held.queue(current -> {
      long t0 = System.nanoTime(); // a slow mutator: past b's deadline and its grace
      HeldBatch.waitUntil(() -> System.nanoTime() - t0 > 2 * Deadlines.OUTCOME_GRACE.toNanos());
      return increment(current, "c");
    });
    held.release();

    assertThat(b.get(60, TimeUnit.SECONDS).written()).isFalse();
    assertThat(failureOf(c)).as("c's deadline is 60 s away; b was answered before the write")
        .isNull();
    assertThat(real.find(eq("_id", "slow")).first().getList("log", String.class))
        .containsExactly("first", "c");
  }

  /**
   * A leader given up at its own deadline returns then: its thread does not go on running
   * rounds for the followers of its batch, which still have time (found by {@code writeguard
   * chaos}, for the lock wait of a locked batch). c's rounds conflict with a competing writer
   * until the test has b's answer; c is handed back to the queue and finishes under a batch of
   * its own, with every attempt it made before counted.
   */
  @Test
  void aLeaderGivenUpAtItsDeadlineReturnsThenWhileItsFollowerRetries() throws Exception {
    insert("given-up");
    VersionedUpdater updater = VersionedUpdater.builder(real)
        .retryPolicy(RetryPolicy.builder().maxAttempts(100_000).deadline(Duration.ofSeconds(60))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(5)).build())
        .build();
    AtomicUpdates.Versioned atomic = AtomicUpdates.versioned(VersionPolicy.defaults());
    HeldBatch held = held(updater, "given-up");
    Future<UpdateOutcome> b = held.queue(() -> Deadlines.within(
        Duration.ofSeconds(1), () -> updater.update("given-up", current -> increment(current, "b"))));
    AtomicBoolean compete = new AtomicBoolean(true);
    Future<UpdateOutcome> c = held.queue(current -> {
      if (compete.get()) { // every round of c's conflicts, b's too, until b is answered
        real.updateOne(eq("_id", "given-up"), atomic.raising(Updates.combine(
            AtomicUpdates.inc(FieldPath.of("n"), 1L),
            AtomicUpdates.push(FieldPath.of("log"), "competitor"))));
      }
      return increment(current, "c");
    });
    held.release();

    Throwable bFailure;
    try {
      bFailure = failureWithin(b, Duration.ofSeconds(15)); // 1 s, and 14 s for a loaded machine
    } finally {
      compete.set(false);
    }
    assertThat(bFailure).as("b, answered while c still retried").isInstanceOf(
        RetriesExhaustedException.class);
    assertThat(((RetriesExhaustedException) bFailure).budget())
        .isEqualTo(RetriesExhaustedException.Budget.DEADLINE);
    UpdateOutcome cOutcome = c.get(60, TimeUnit.SECONDS);
    List<String> log = real.find(eq("_id", "given-up")).first().getList("log", String.class);
    assertThat(log).doesNotContain("b").endsWith("c").startsWith("first");
    long competitors = log.stream().filter("competitor"::equals).count();
    assertThat(competitors).as("rounds that conflicted").isPositive();
    // Each conflicting round and the last one, and at most one round whose read b's deadline
    // cut (a round runs under its callers' earliest deadline): counted across c's two batches.
    assertThat(cOutcome.attempts()).as("c's attempts, counted across its two batches")
        .isBetween((int) competitors + 1, (int) competitors + 2);
  }

  @Test
  void aFollowersOwnDeadlineEndsItsWaitBehindAHeldBatch() throws Exception {
    insert("held");
    VersionedUpdater updater = updater();
    HeldBatch held = held(updater, "held");
    try {
      long start = System.nanoTime();
      Future<UpdateOutcome> late = pool.submit(() -> Deadlines.within(Duration.ofMillis(300),
          () -> updater.update("held", current -> increment(current, "late"))));
      Throwable t = failureWithin(late,
          Duration.ofMillis(300).plus(Deadlines.OUTCOME_GRACE).plusMillis(1500));
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(t).as("answered after %s", took).isInstanceOf(RetriesExhaustedException.class);
      assertThat(((RetriesExhaustedException) t).budget())
          .isEqualTo(RetriesExhaustedException.Budget.DEADLINE);
    } finally {
      held.release();
    }
    // Withdrawn before any batch took it: nothing of it was written.
    assertThat(real.find(eq("_id", "held")).first().getList("log", String.class))
        .containsExactly("first");
  }
}
