package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.atomic.AtomicUpdates;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.path.FieldPath;
import io.writeguard.testing.ApplyThenFail;
import io.writeguard.testing.Concurrently;
import io.writeguard.testing.FakeTime;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Group commit on a real server. The deterministic tests build their batches by hand: the first
 * caller's mutator holds the leader inside its batch on a latch, the others are queued one by
 * one (each start waits until the updater reports it queued), and releasing the latch lets the
 * next leader take them all, in arrival order, as one batch.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GroupCommitTest {
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("GroupCommit").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final List<Integer> batches = new CopyOnWriteArrayList<>();
  private final RecordingListener events = new RecordingListener();
  private final WriteGuardListener listener = WriteGuardListener.composite(events,
      new WriteGuardListener() {
        @Override
        public void onBatch(OperationScope scope, Object key, int size) {
          batches.add(size);
        }
      });

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private VersionedUpdater.Builder builder(MongoCollection<Document> docs) {
    return VersionedUpdater.builder(docs)
        .listener(listener)
        .retryPolicy(RetryPolicy.builder().maxAttempts(10_000).deadline(Duration.ofSeconds(90))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(20)).build());
  }

  private void insert(String id) {
    VersionedInsert.insertOne(real, VersionPolicy.defaults(),
        new Document("_id", id).append("n", 0L).append("log", List.of()));
  }

  private static Mutation increment(Document current, String mark) {
    return Mutation.update(Updates.combine(
        Updates.set("n", current.getLong("n") + 1), Updates.push("log", mark)));
  }

  private Document stored(String id) {
    return real.find(eq("_id", id)).first();
  }

  /** The first caller of {@code id} held inside its batch; it marks "first" once released. */
  private HeldBatch held(VersionedUpdater updater, String id) throws Exception {
    return new HeldBatch(pool, updater, id, current -> increment(current, "first"));
  }

  private static Throwable failureOf(Future<?> f) {
    try {
      f.get(60, TimeUnit.SECONDS);
      return null;
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void sixtyFourThreadsIncrementingOneDocumentThroughOneUpdaterLoseNothing() throws Exception {
    insert("hot");
    VersionedUpdater updater = builder(real).build();
    int threads = 64;
    int perThread = 20;
    Concurrently.run(threads, Duration.ofSeconds(110), thread -> {
      for (int i = 0; i < perThread; i++) {
        String mark = thread + "-" + i;
        updater.update("hot", current -> increment(current, mark));
      }
    });
    int total = threads * perThread;
    Document hot = stored("hot");
    assertThat(hot.getLong("n")).isEqualTo(total);
    assertThat(hot.getLong("version")).as("one version per update").isEqualTo(total);
    assertThat(new HashSet<>(hot.getList("log", String.class))).hasSize(total);
    assertThat(batches.stream().mapToInt(Integer::intValue).sum())
        .as("every update rode in exactly one batch").isEqualTo(total);
    assertThat(batches).allMatch(size -> size >= 1 && size <= 64);
  }

  @Test
  void twoUpdatersAndVersionedAtomicWritersOnOneDocumentLoseNothing() throws Exception {
    insert("mixed");
    VersionedUpdater a = builder(real).build();
    VersionedUpdater b = builder(real).build();
    AtomicUpdates.Versioned atomic = AtomicUpdates.versioned(VersionPolicy.defaults());
    int threads = 24;
    int perThread = 15;
    Concurrently.run(threads, Duration.ofSeconds(110), thread -> {
      for (int i = 0; i < perThread; i++) {
        String mark = thread + "-" + i;
        switch (thread % 3) {
          case 0 -> a.update("mixed", current -> increment(current, mark));
          case 1 -> b.updateOne("mixed", current -> {
            current.put("n", current.getLong("n") + 1);
            List<String> log = new ArrayList<>(current.getList("log", String.class));
            log.add(mark);
            current.put("log", log);
            return Mutation.replace(current);
          });
          default -> real.updateOne(eq("_id", "mixed"), atomic.raising(Updates.combine(
              AtomicUpdates.inc(FieldPath.of("n"), 1L),
              AtomicUpdates.push(FieldPath.of("log"), mark))));
        }
      }
    });
    int total = threads * perThread;
    Document doc = stored("mixed");
    assertThat(doc.getLong("n")).isEqualTo(total);
    assertThat(doc.getLong("version")).isEqualTo(total);
    assertThat(new HashSet<>(doc.getList("log", String.class))).hasSize(total);
  }

  @Test
  void aMutatorThatThrowsInTheMiddleOfABatchFailsOnlyItsCaller() throws Exception {
    insert("d");
    VersionedUpdater updater = builder(real).build();
    HeldBatch held = held(updater, "d");
    Future<UpdateOutcome> b = held.queue(current -> increment(current, "b"));
    Future<UpdateOutcome> c = held.queue(current -> {
      throw new IllegalStateException("c refuses");
    });
    Future<UpdateOutcome> d = held.queue(current -> increment(current, "d"));
    held.release();

    assertThat(failureOf(c)).isInstanceOf(IllegalStateException.class).hasMessage("c refuses");
    assertThat(b.get().version()).isEqualTo(2);
    assertThat(d.get().version()).isEqualTo(3);
    assertThat(d.get().document().orElseThrow().getList("log", String.class))
        .containsExactly("first", "b", "d");
    assertThat(stored("d").getList("log", String.class)).containsExactly("first", "b", "d");
    assertThat(stored("d").getLong("version")).isEqualTo(3);
    assertThat(batches).containsExactly(1, 3);
  }

  @Test
  void aConflictBetweenTheBatchReadAndItsWriteRetriesTheWholeBatchFromAFreshRead()
      throws Exception {
    insert("c");
    VersionedUpdater updater = builder(real).build();
    AtomicUpdates.Versioned atomic = AtomicUpdates.versioned(VersionPolicy.defaults());
    AtomicBoolean competed = new AtomicBoolean();
    HeldBatch held = held(updater, "c");
    Future<UpdateOutcome> b = held.queue(current -> {
      if (competed.compareAndSet(false, true)) { // after the batch's read, before its write
        real.updateOne(eq("_id", "c"), atomic.raising(Updates.combine(
            AtomicUpdates.inc(FieldPath.of("n"), 1L),
            AtomicUpdates.push(FieldPath.of("log"), "competitor"))));
      }
      return increment(current, "b");
    });
    Future<UpdateOutcome> c = held.queue(current -> increment(current, "c"));
    Future<UpdateOutcome> d = held.queue(current -> increment(current, "d"));
    held.release();

    assertThat(List.of(b.get().attempts(), c.get().attempts(), d.get().attempts()))
        .containsExactly(2, 2, 2);
    Document doc = stored("c");
    assertThat(doc.getList("log", String.class)).containsExactly("first", "competitor", "b", "c", "d");
    assertThat(doc.getLong("n")).isEqualTo(5);
    assertThat(doc.getLong("version")).isEqualTo(5);
    assertThat(events.events.stream().filter(e -> e.startsWith("conflict")).count()).isEqualTo(3);
  }

  @Test
  void anUnknownWriteOutcomeFailsEveryCallerOfThatBatchAndNobodyElse() throws Exception {
    insert("u");
    ApplyThenFail faults = ApplyThenFail.atWrite(2); // write 1: the first caller's; 2: the batch's
    VersionedUpdater updater = builder(faults.wrap(real)).build();
    HeldBatch held = held(updater, "u");
    Future<UpdateOutcome> b = held.queue(current -> increment(current, "b"));
    Future<UpdateOutcome> looker = held.queue(current -> Mutation.none());
    Future<UpdateOutcome> d = held.queue(current -> increment(current, "d"));
    held.release();

    assertThat(failureOf(b)).isInstanceOf(WriteOutcomeUnknownException.class);
    assertThat(failureOf(d)).isInstanceOf(WriteOutcomeUnknownException.class)
        .hasMessageContaining("_id=u").hasMessageContaining("from version 1");
    // The caller that wrote nothing decided on a state that may not exist: it ran again.
    assertThat(looker.get().written()).isFalse();
    assertThat(looker.get().version()).isEqualTo(3);
    assertThat(faults.writes()).isEqualTo(2);
    // The write was applied (that is what the fault does), and a later update is unaffected.
    assertThat(updater.update("u", current -> increment(current, "e")).version()).isEqualTo(4);
    assertThat(stored("u").getList("log", String.class)).containsExactly("first", "b", "d", "e");
  }

  @Test
  void updatesAreAppliedInArrivalOrder() throws Exception {
    insert("fifo");
    VersionedUpdater updater = builder(real).build();
    List<String> called = new CopyOnWriteArrayList<>();
    HeldBatch held = held(updater, "fifo");
    List<Future<UpdateOutcome>> queued = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String mark = "q" + i;
      queued.add(held.queue(current -> {
        called.add(mark);
        return Mutation.update(Updates.push("log", mark));
      }));
    }
    held.release();
    for (Future<UpdateOutcome> f : queued) {
      f.get(60, TimeUnit.SECONDS);
    }
    assertThat(called).containsExactly("q0", "q1", "q2", "q3", "q4", "q5");
    assertThat(stored("fifo").getList("log", String.class))
        .containsExactly("first", "q0", "q1", "q2", "q3", "q4", "q5");
    assertThat(batches).containsExactly(1, 6);
  }

  @Test
  void aBatchNeverHoldsMoreThanMaxBatchSize() throws Exception {
    insert("bound");
    VersionedUpdater updater = builder(real).maxBatchSize(2).build();
    HeldBatch held = held(updater, "bound");
    List<Future<UpdateOutcome>> queued = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String mark = "q" + i;
      queued.add(held.queue(current -> increment(current, mark)));
    }
    held.release();
    for (Future<UpdateOutcome> f : queued) {
      f.get(60, TimeUnit.SECONDS);
    }
    assertThat(batches).containsExactly(1, 2, 2, 1);
    assertThat(stored("bound").getLong("n")).isEqualTo(6);
  }

  @Test
  void aCallerAloneSendsItsMutationAsItIsOnItsOwnThread() {
    insert("alone");
    ApplyThenFail writes = ApplyThenFail.never();
    VersionedUpdater updater = builder(writes.wrap(real)).build();
    Thread caller = Thread.currentThread();
    for (int i = 0; i < 3; i++) {
      updater.update("alone", current -> {
        assertThat(Thread.currentThread()).isSameAs(caller);
        return Mutation.update(Updates.inc("n", 1L));
      });
    }
    assertThat(batches).containsExactly(1, 1, 1);
    assertThat(writes.log()).hasSize(3)
        .allMatch(line -> line.contains("findOneAndUpdate"));
    assertThat(stored("alone").getLong("n")).isEqualTo(3);
  }

  @Test
  void operatorsTheModelRefusesAreWrittenAloneAndTheRestCombined() throws Exception {
    insert("ops");
    ApplyThenFail writes = ApplyThenFail.never();
    VersionedUpdater updater = builder(writes.wrap(real)).build();
    HeldBatch held = held(updater, "ops");
    Future<UpdateOutcome> b = held.queue(current -> Mutation.update(Updates.inc("n", 1L)));
    Future<UpdateOutcome> c = held.queue(current -> Mutation.update(Updates.inc("n", 1L)));
    Future<UpdateOutcome> renamer =
        held.queue(current -> Mutation.update(Updates.rename("n", "m")));
    Future<UpdateOutcome> e = held.queue(current -> Mutation.update(Updates.set("k", "v")));
    held.release();
    b.get();
    c.get();
    renamer.get();
    assertThat(e.get().version()).isEqualTo(5);
    // first alone; b + c merged (one updateOne); the $rename alone as it is; then e alone.
    assertThat(writes.log()).hasSize(4);
    assertThat(writes.log().get(1)).contains("updateOne");
    assertThat(writes.log().get(2)).contains("findOneAndUpdate");
    Document doc = stored("ops");
    assertThat(doc.containsKey("n")).isFalse();
    assertThat(doc.getLong("m")).isEqualTo(3);
    assertThat(doc.getString("k")).isEqualTo("v");
    assertThat(doc.getLong("version")).isEqualTo(5);
  }

  @Test
  void replacementsAndOperatorsCombineAndEachCallerSeesItsOwnStep() throws Exception {
    insert("mix");
    VersionedUpdater updater = builder(real).build();
    HeldBatch held = held(updater, "mix");
    Future<UpdateOutcome> replace = held.queue(current -> {
      assertThat(current.getLong("version")).isEqualTo(1);
      current.put("n", current.getLong("n") * 10);
      return Mutation.replace(current);
    });
    Future<UpdateOutcome> inc = held.queue(current -> {
      assertThat(current.getLong("version")).as("the version a serial run shows").isEqualTo(2);
      return Mutation.update(Updates.inc("n", 5L));
    });
    Future<UpdateOutcome> look = held.queue(current -> Mutation.none());
    held.release();
    assertThat(replace.get().version()).isEqualTo(2);
    assertThat(replace.get().document().orElseThrow().getLong("n")).isEqualTo(10);
    assertThat(inc.get().version()).isEqualTo(3);
    assertThat(inc.get().document().orElseThrow().getLong("n")).isEqualTo(15);
    assertThat(look.get().written()).isFalse();
    assertThat(look.get().version()).isEqualTo(3);
    assertThat(stored("mix").getLong("n")).isEqualTo(15);
    assertThat(stored("mix").getLong("version")).isEqualTo(3);
  }

  @Test
  void eachCallerInABatchKeepsItsOwnAttemptBudget() throws Exception {
    insert("budget");
    FakeTime time = new FakeTime();
    VersionedUpdater updater = VersionedUpdater.builder(real)
        .listener(listener)
        .ticker(time.ticker())
        .sleeper(time.sleeper())
        .retryPolicy(RetryPolicy.builder().maxAttempts(3).build())
        .contentionPacing(false) // every lost round counts (ContentionPacingTest: the paced count)
        .build();
    AtomicUpdates.Versioned atomic = AtomicUpdates.versioned(VersionPolicy.defaults());
    AtomicInteger competitors = new AtomicInteger();
    HeldBatch held = held(updater, "budget");
    Mutator alwaysBeaten = current -> { // a competing write after every read of the batch
      competitors.incrementAndGet();
      real.updateOne(eq("_id", "budget"), atomic.raising(Updates.inc("n", 1L)));
      return increment(current, "b");
    };
    Future<UpdateOutcome> b = held.queue(alwaysBeaten);
    Future<UpdateOutcome> c = held.queue(current -> increment(current, "c"));
    held.release();
    for (Future<UpdateOutcome> f : List.of(b, c)) {
      assertThat(failureOf(f)).isInstanceOfSatisfying(RetriesExhaustedException.class, e -> {
        assertThat(e.attempts()).isEqualTo(3);
        assertThat(e.budget()).isEqualTo(RetriesExhaustedException.Budget.ATTEMPTS);
      });
    }
    assertThat(competitors.get()).isEqualTo(3);
    assertThat(stored("budget").getLong("n")).isEqualTo(1 + 3);
    assertThat(stored("budget").getList("log", String.class)).containsExactly("first");
  }

  @Test
  void aCallerQueuedPastItsDeadlineGivesUpWithoutBeingRun() throws Exception {
    insert("late");
    FakeTime time = new FakeTime();
    VersionedUpdater updater = VersionedUpdater.builder(real)
        .ticker(time.ticker())
        .sleeper(time.sleeper())
        .retryPolicy(RetryPolicy.builder().deadline(Duration.ofSeconds(1)).build())
        .build();
    HeldBatch held = held(updater, "late");
    AtomicBoolean ran = new AtomicBoolean();
    Future<UpdateOutcome> late = held.queue(current -> {
      ran.set(true);
      return increment(current, "late");
    });
    time.advance(Duration.ofSeconds(2));
    // Released before the late caller is awaited: the held caller's MongoDB operations have the
    // same second on the real clock, and the late caller's own wake-up comes after it.
    held.release();
    assertThat(failureOf(late)).isInstanceOfSatisfying(RetriesExhaustedException.class,
        e -> assertThat(e.budget()).isEqualTo(RetriesExhaustedException.Budget.DEADLINE));
    assertThat(ran).isFalse();
    assertThat(stored("late").getList("log", String.class)).containsExactly("first");
  }

  @Test
  void groupCommitCanBeTurnedOffAndTheBatchBoundIsValidated() {
    assertThat(builder(real).groupCommit(false).build().groupCommit()).isFalse();
    assertThat(builder(real).build().groupCommit()).isTrue();
    assertThatThrownBy(() -> builder(real).maxBatchSize(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxBatchSize");
  }

  @Test
  void anUpdateInsideAMutatorOfTheSameDocumentRunsByItself() {
    insert("nested");
    VersionedUpdater updater = builder(real).build();
    AtomicBoolean nested = new AtomicBoolean();
    UpdateOutcome outcome = updater.update("nested", current -> {
      if (nested.compareAndSet(false, true)) {
        updater.update("nested", inner -> increment(inner, "inner"));
      }
      return increment(current, "outer");
    });
    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(stored("nested").getList("log", String.class)).containsExactly("inner", "outer");
  }
  @Test
  void anErrorThrownByAMutatorFailsOnlyItsCallerWithThatError() throws Exception {
    insert("error");
    VersionedUpdater updater = builder(real).build();
    HeldBatch held = held(updater, "error");
    Future<UpdateOutcome> before = held.queue(current -> {
      throw new AssertionError("broken before any writer");
    });
    Future<UpdateOutcome> b = held.queue(current -> increment(current, "b"));
    Future<UpdateOutcome> after = held.queue(current -> {
      throw new StackOverflowError("broken after a writer");
    });
    Future<UpdateOutcome> d = held.queue(current -> increment(current, "d"));
    held.release();

    assertThat(failureOf(before)).isInstanceOf(AssertionError.class)
        .hasMessage("broken before any writer");
    assertThat(failureOf(after)).isInstanceOf(StackOverflowError.class)
        .hasMessage("broken after a writer");
    assertThat(b.get().version()).isEqualTo(2);
    assertThat(d.get().version()).isEqualTo(3);
    assertThat(stored("error").getList("log", String.class)).containsExactly("first", "b", "d");
    assertThat(batches).containsExactly(1, 4);
  }

  @Test
  void nestedUpdatesOfEachOthersDocumentsFromTwoLeadersDoNotWaitForEachOther()
      throws Exception {
    insert("x");
    insert("y");
    // A short deadline: with the bug each nested update waits in the other leader's queue
    // until it runs out, then fails its outer update.
    VersionedUpdater updater = VersionedUpdater.builder(real).listener(listener)
        .retryPolicy(RetryPolicy.builder().maxAttempts(100).deadline(Duration.ofSeconds(5))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(5)).build())
        .build();
    CountDownLatch xLeading = new CountDownLatch(1);
    CountDownLatch yLeading = new CountDownLatch(1);
    AtomicBoolean xNested = new AtomicBoolean();
    AtomicBoolean yNested = new AtomicBoolean();
    Future<UpdateOutcome> x = pool.submit(() -> updater.update("x", current -> {
      if (xNested.compareAndSet(false, true)) {
        xLeading.countDown();
        HeldBatch.await(yLeading); // both leaders are inside their batches now
        updater.update("y", inner -> increment(inner, "from-x"));
      }
      return increment(current, "x");
    }));
    Future<UpdateOutcome> y = pool.submit(() -> updater.update("y", current -> {
      if (yNested.compareAndSet(false, true)) {
        yLeading.countDown();
        HeldBatch.await(xLeading);
        updater.update("x", inner -> increment(inner, "from-y"));
      }
      return increment(current, "y");
    }));
    assertThat(failureOf(x)).isNull();
    assertThat(failureOf(y)).isNull();
    // Either may land first on each document; each exactly once.
    assertThat(stored("x").getList("log", String.class)).containsExactlyInAnyOrder("from-y", "x");
    assertThat(stored("y").getList("log", String.class)).containsExactlyInAnyOrder("from-x", "y");
  }

  @Test
  void aLegacyDocumentsFirstWriterIsSentAloneSoTheServerOrdersItsNewFields() throws Exception {
    // No version field yet: the first write creates it next to the writer's own new field,
    // and servers order two new fields differently (by name from 5.0, as given before), so a
    // combined replacement could not know the order sequential updates leave.
    real.insertOne(new Document("_id", "legacy").append("n", 0L).append("log", List.of()));
    ApplyThenFail writes = ApplyThenFail.never();
    VersionedUpdater updater = builder(writes.wrap(real)).build();
    // A leader that writes nothing holds the queue while two new-field writers queue.
    HeldBatch held = new HeldBatch(pool, updater, "legacy", current -> Mutation.none());
    Future<UpdateOutcome> zeta = held.queue(current -> Mutation.update(Updates.set("zeta", 1)));
    Future<UpdateOutcome> alpha =
        held.queue(current -> Mutation.update(Updates.set("alpha", 1)));
    held.release();
    assertThat(zeta.get(60, TimeUnit.SECONDS).version()).isEqualTo(1);
    assertThat(alpha.get(60, TimeUnit.SECONDS).version()).isEqualTo(2);
    assertThat(writes.log()).hasSize(2);
    assertThat(writes.log()).allMatch(w -> w.contains("findOneAndUpdate"));
    assertThat(stored("legacy").getLong("version")).isEqualTo(2);
  }
}
