package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.update.LockedTesting.await;
import static io.writeguard.update.LockedTesting.failureOf;
import static io.writeguard.update.LockedTesting.holderWith;
import static io.writeguard.update.LockedTesting.replaced;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.lock.StaleLockException;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.ApplyThenFail;
import io.writeguard.testing.Concurrently;
import io.writeguard.testing.ReleaseFailingLocks;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedTesting.HeldBatch;
import io.writeguard.update.LockedTesting.ScriptedLocks;
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
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link LockedUpdater} on a real server: exact totals under real concurrent writers with each
 * kind of lock, one lock hold per batch, and the nasty interleavings forced by hand: a newer
 * holder claiming the document inside a batch's mutator, a writer that bypasses the lock
 * writing inside it, a write applied and then reported lost, a lock that is not had in time,
 * a release that fails, a lock that lets everyone in.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LockedUpdaterTest {
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("LockedUpdater").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final List<Integer> batches = new CopyOnWriteArrayList<>();
  private final List<Long> fencedRejections = new CopyOnWriteArrayList<>();
  private final AtomicInteger conflicts = new AtomicInteger();
  private final WriteGuardListener listener = new WriteGuardListener() {
    @Override
    public void onBatch(OperationScope scope, Object key, int size) {
      batches.add(size);
    }

    @Override
    public void onFencedRejection(OperationScope scope, Object key, long token) {
      fencedRejections.add(token);
    }

    @Override
    public void onConflict(OperationScope scope, Object key, int attempt) {
      conflicts.incrementAndGet();
    }
  };
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    pool.shutdownNow();
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private LockedUpdater.Builder builder(MongoCollection<Document> docs, LockService locks) {
    return LockedUpdater.builder(docs, locks)
        .listener(listener)
        .lockWait(Duration.ofSeconds(60))
        .retryPolicy(RetryPolicy.builder().maxAttempts(50).deadline(Duration.ofSeconds(60))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(5)).build());
  }

  private void insert(String id) {
    VersionedInsert.insertOne(real, VersionPolicy.defaults(),
        new Document("_id", id).append("n", 0L).append("log", List.of()));
  }

  private Document stored(String id) {
    return real.find(eq("_id", id)).first();
  }

  /** Holds the first update of {@code id} ("first") inside its batch. */
  private HeldBatch held(LockedUpdater updater, String id) {
    return new HeldBatch(pool, m -> updater.update(id, m), () -> updater.waiting(id),
        current -> replaced(current, "first"));
  }

  /** n + 1 and the mark appended, as operators. */
  private static Mutation operators(Document current, String mark) {
    return Mutation.update(Updates.combine(
        Updates.set("n", current.getLong("n") + 1), Updates.push("log", mark)));
  }

  private com.mongodb.client.MongoDatabase database() {
    return TestMongo.client().getDatabase(real.getNamespace().getDatabaseName());
  }

  private LockService locksOf(String kind) {
    LockService locks = switch (kind) {
      case "local" -> LocalLockService.create();
      case "mongo" -> MongoLeaseLockService.builder(database(), "locks").build();
      default -> throw new IllegalArgumentException(kind);
    };
    closing.add(locks);
    return locks;
  }

  @ParameterizedTest(name = "{0} lock, group commit {1}, version filter {2}")
  @CsvSource({"local,true,true", "local,true,false", "local,false,false", "mongo,true,true",
      "mongo,true,false", "mongo,false,false"})
  void concurrentWritersUnderTheLockLoseNothing(String kind, boolean groupCommit,
      boolean versionFilter) throws Exception {
    insert("hot");
    LockedUpdater updater = builder(real, locksOf(kind)).groupCommit(groupCommit)
        .versionFilter(versionFilter).build();
    int threads = 16;
    int perThread = groupCommit ? 25 : 10;
    Concurrently.run(threads, Duration.ofSeconds(110), thread -> {
      for (int i = 0; i < perThread; i++) {
        String mark = thread + "-" + i;
        if (i % 2 == 0) {
          updater.update("hot", current -> replaced(current, mark));
        } else {
          updater.updateOne("hot", current -> operators(current, mark));
        }
      }
    });
    int total = threads * perThread;
    Document hot = stored("hot");
    assertThat(hot.getLong("n")).isEqualTo(total);
    assertThat(new HashSet<>(hot.getList("log", String.class))).hasSize(total);
    assertThat(hot.getList("log", String.class)).hasSize(total);
    assertThat(hot.getLong("version")).as("every update (and every claim) raised it")
        .isGreaterThanOrEqualTo(total);
    assertThat(conflicts.get()).as("nothing bypassed the lock").isZero();
    assertThat(fencedRejections).isEmpty();
    if (groupCommit) {
      assertThat(batches.stream().mapToInt(Integer::intValue).sum())
          .as("every update rode in exactly one batch").isEqualTo(total);
    }
  }

  @Test
  void queuedCallersShareOneLockHoldOneReadAndOneWrite() throws Exception {
    insert("d");
    AtomicLong tokens = new AtomicLong(100);
    ScriptedLocks locks = new ScriptedLocks(tokens::incrementAndGet);
    ApplyThenFail writes = ApplyThenFail.never();
    LockedUpdater updater = builder(writes.wrap(real), locks).build();
    HeldBatch held = held(updater, "d");
    Future<UpdateOutcome> b = held.queue(current -> replaced(current, "b"));
    Future<UpdateOutcome> c = held.queue(current -> operators(current, "c"));
    Future<UpdateOutcome> d = held.queue(current -> replaced(current, "d"));
    held.release();

    assertThat(List.of(b.get(), c.get(), d.get())).allMatch(UpdateOutcome::written);
    assertThat(d.get().document().orElseThrow().getList("log", String.class))
        .containsExactly("first", "b", "c", "d");
    assertThat(stored("d").getList("log", String.class)).containsExactly("first", "b", "c", "d");
    assertThat(batches).containsExactly(1, 3);
    assertThat(locks.acquired.get()).as("one lock hold per batch").isEqualTo(2);
    // first: claim + replace; the batch of three: one claim, one replace.
    assertThat(writes.writes()).isEqualTo(4);
    assertThat(stored("d").getLong("_fence")).isEqualTo(102);
  }

  @Test
  void aMutatorThatThrowsFailsOnlyItsCallerAndTheOthersCommit() throws Exception {
    insert("d");
    LockedUpdater updater = builder(real, LocalLockService.create()).build();
    HeldBatch held = held(updater, "d");
    Future<UpdateOutcome> b = held.queue(current -> replaced(current, "b"));
    Future<UpdateOutcome> c = held.queue(current -> {
      current.put("n", -1L); // changes its copy, then throws: nothing of it may be written
      throw new IllegalStateException("c refuses");
    });
    Future<UpdateOutcome> d = held.queue(current -> replaced(current, "d"));
    held.release();

    assertThat(failureOf(c)).isInstanceOf(IllegalStateException.class).hasMessage("c refuses");
    assertThat(b.get().written()).isTrue();
    assertThat(d.get().written()).isTrue();
    assertThat(stored("d").getList("log", String.class)).containsExactly("first", "b", "d");
    assertThat(stored("d").getLong("n")).isEqualTo(3);
  }

  @Test
  void aNewerHolderThatClaimsInsideTheBatchMakesItsWriteRefusedAndTheBatchRunsAgainOnce()
      throws Exception {
    insert("d");
    // Tokens 10 for the first hold, 30 for the next; the newer holder in between has 20.
    long[] script = {10, 30, 40};
    AtomicInteger next = new AtomicInteger();
    ScriptedLocks locks = new ScriptedLocks(() -> script[next.getAndIncrement()]);
    LockedUpdater updater = builder(real, locks).build();
    FencedWriter newer = FencedWriter.builder(real).versionPolicy(VersionPolicy.defaults())
        .build();
    AtomicBoolean competed = new AtomicBoolean();
    UpdateOutcome outcome = updater.update("d", current -> {
      if (competed.compareAndSet(false, true)) {
        // Our lease ran out while we computed: a newer holder claims and writes.
        LockHandle other = holderWith(20);
        Document doc = newer.claim(other, "d").orElseThrow();
        doc.put("log", List.of("newer"));
        doc.put("n", 1L);
        assertThat(newer.replaceOne(other, "d", doc)).isEqualTo(FencedWriter.Outcome.APPLIED);
      }
      return replaced(current, "ours");
    });

    assertThat(outcome.written()).isTrue();
    assertThat(outcome.fencedRejections()).isEqualTo(1);
    Document doc = stored("d");
    assertThat(doc.getList("log", String.class)).containsExactly("newer", "ours");
    assertThat(doc.getLong("n")).isEqualTo(2);
    assertThat(doc.getLong("_fence")).isEqualTo(30);
    assertThat(fencedRejections).containsExactly(10L);
    assertThat(locks.acquired.get()).isEqualTo(2);
  }

  @Test
  void anUpdateTheFenceKeepsRefusingGivesUpWithStaleLockAndWritesNothing() {
    insert("d");
    real.updateOne(eq("_id", "d"), Updates.set("_fence", 1_000L));
    AtomicLong tokens = new AtomicLong();
    ScriptedLocks locks = new ScriptedLocks(tokens::incrementAndGet); // always below 1,000
    LockedUpdater updater = builder(real, locks).build();

    assertThatThrownBy(() -> updater.update("d", current -> replaced(current, "x")))
        .isInstanceOf(StaleLockException.class);
    assertThat(locks.acquired.get()).isEqualTo(LockedUpdater.MAX_FENCED_REJECTIONS);
    assertThat(stored("d").getList("log", String.class)).isEmpty();
    assertThat(stored("d").getLong("_fence")).isEqualTo(1_000L);
  }

  @Test
  void aHandleThatKnowsItsLeaseIsLostWritesNothingAndTheUpdateRunsUnderAFreshLock() {
    insert("d");
    AtomicLong tokens = new AtomicLong();
    ScriptedLocks locks = new ScriptedLocks(tokens::incrementAndGet);
    locks.nextIsLost = true;
    LockedUpdater updater = builder(real, locks).build();

    assertThat(updater.update("d", current -> replaced(current, "x")).fencedRejections())
        .isEqualTo(1);
    assertThat(stored("d").getList("log", String.class)).containsExactly("x");
    assertThat(stored("d").getLong("_fence")).isEqualTo(2);
    assertThat(locks.acquired.get()).isEqualTo(2);
  }

  @Test
  void aWriterThatBypassesTheLockInsideTheMutatorIsNotErasedWithTheVersionFilter()
      throws Exception {
    insert("d");
    LockedUpdater updater = builder(real, LocalLockService.create()).build();
    VersionedUpdater bypass = VersionedUpdater.builder(real).groupCommit(false).build();
    AtomicBoolean competed = new AtomicBoolean();
    UpdateOutcome outcome = updater.update("d", current -> {
      if (competed.compareAndSet(false, true)) {
        bypass.update("d", doc -> replaced(doc, "bypass"));
      }
      return replaced(current, "ours");
    });

    assertThat(outcome.attempts()).isEqualTo(2);
    assertThat(stored("d").getList("log", String.class)).containsExactly("bypass", "ours");
    assertThat(conflicts.get()).isEqualTo(1);
  }

  @Test
  void withoutTheVersionFilterOnlyTheLockGuardsTheWriteSoABypassingWriterIsErased() {
    // The lab's setting: it must be able to show a writer the lock does not stop.
    insert("d");
    LockedUpdater updater = builder(real, LocalLockService.create()).versionFilter(false)
        .build();
    AtomicBoolean competed = new AtomicBoolean();
    updater.update("d", current -> {
      if (competed.compareAndSet(false, true)) {
        real.updateOne(eq("_id", "d"), Updates.push("log", "bypass"));
      }
      return replaced(current, "ours");
    });

    assertThat(stored("d").getList("log", String.class)).containsExactly("ours");
  }

  @Test
  void aLockThatLetsEveryoneInShowsUpAsLostUpdatesWithoutTheVersionFilter() throws Exception {
    // Two updaters stand for two processes: a broken lock lets both hold at once with the
    // same token, so the fence cannot tell them apart either.
    insert("d");
    LockService everyone = LockedTesting.everyoneAt(1);
    CountDownLatch bothRead = new CountDownLatch(2);
    List<LockedUpdater> processes = List.of(
        builder(real, everyone).versionFilter(false).build(),
        builder(real, everyone).versionFilter(false).build());
    Concurrently.run(2, Duration.ofSeconds(60), p ->
        processes.get(p).update("d", current -> {
          bothRead.countDown();
          await(bothRead);
          return replaced(current, "p" + p);
        }));

    assertThat(stored("d").getList("log", String.class)).hasSize(1);
  }

  @Test
  void aWriteAppliedThenReportedLostFailsTheCallersItCarriedAndIsNeverAppliedTwice()
      throws Exception {
    insert("u");
    // Write 1: the first caller's claim; 2 its replace; 3 the batch's claim; 4 its replace.
    ApplyThenFail faults = ApplyThenFail.atWrite(4);
    LockedUpdater updater = builder(faults.wrap(real), LocalLockService.create()).build();
    HeldBatch held = held(updater, "u");
    Future<UpdateOutcome> b = held.queue(current -> replaced(current, "b"));
    Future<UpdateOutcome> looker = held.queue(current -> Mutation.none());
    Future<UpdateOutcome> d = held.queue(current -> operators(current, "d"));
    held.release();

    assertThat(failureOf(b)).isInstanceOf(WriteOutcomeUnknownException.class);
    assertThat(failureOf(d)).isInstanceOf(WriteOutcomeUnknownException.class)
        .hasMessageContaining("_id=u");
    assertThat(looker.get().written()).isFalse();
    updater.update("u", current -> replaced(current, "e"));
    assertThat(stored("u").getList("log", String.class)).containsExactly("first", "b", "d", "e");
  }

  @Test
  void aClaimAppliedThenReportedLostIsSimplyRepeated() throws Exception {
    insert("u");
    ApplyThenFail faults = ApplyThenFail.atWrite(1);
    LockedUpdater updater = builder(faults.wrap(real), LocalLockService.create()).build();

    updater.update("u", current -> replaced(current, "x"));
    assertThat(faults.fired()).isTrue();
    assertThat(stored("u").getList("log", String.class)).containsExactly("x");
  }

  @Test
  void aLockNotHadInTimeFailsEveryQueuedCallerAndWritesNothing() throws Exception {
    insert("d");
    LocalLockService locks = LocalLockService.create();
    LockHandle blocker = locks.acquire("docs:d", Duration.ofSeconds(1));
    LockedUpdater updater = builder(real, locks).lockWait(Duration.ofMillis(200)).build();
    List<Future<UpdateOutcome>> callers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String mark = "m" + i;
      callers.add(pool.submit(() -> updater.update("d", current -> replaced(current, mark))));
    }
    for (Future<UpdateOutcome> f : callers) {
      assertThat(failureOf(f)).isInstanceOf(LockTimeoutException.class)
          .hasMessageContaining("docs:d");
    }
    blocker.close();
    assertThat(stored("d").getList("log", String.class)).isEmpty();
  }

  @Test
  void aReleaseThatFailsAfterTheWriteDoesNotTurnTheWriteIntoAnError() {
    insert("d");
    ReleaseFailingLocks locks = new ReleaseFailingLocks();
    LockedUpdater updater = builder(real, locks).build();

    UpdateOutcome outcome = updater.update("d", current -> replaced(current, "x"));
    assertThat(outcome.written()).isTrue();
    assertThat(locks.releases()).isEqualTo(1);
    assertThat(stored("d").getList("log", String.class)).containsExactly("x");
  }

  @Test
  void aMutationThatWritesTheFenceIsRefusedAndNothingIsWritten() {
    insert("d");
    LockedUpdater updater = builder(real, LocalLockService.create()).build();

    assertThatThrownBy(() -> updater.update("d",
        current -> Mutation.update(Updates.set("_fence", 0L))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("_fence");
    // The claim raised the fence (and the version) as it read; the mutation wrote nothing.
    assertThat(stored("d").getLong("_fence")).isPositive();
    assertThat(stored("d").getLong("n")).isZero();
    assertThat(stored("d").getList("log", String.class)).isEmpty();
  }

  @Test
  void aMissingDocumentIsNotFound() {
    LockedUpdater updater = builder(real, LocalLockService.create()).build();
    assertThatThrownBy(() -> updater.update("none", current -> replaced(current, "x")))
        .isInstanceOf(DocumentNotFoundException.class).hasMessageContaining("none");
    assertThat(real.countDocuments()).isZero();
  }

  @Test
  void aMutatorUpdatingItsOwnDocumentThroughTheSameUpdaterIsRefusedAtOnce() {
    insert("d");
    insert("other");
    LockedUpdater updater = builder(real, LocalLockService.create()).build();

    assertThatThrownBy(() -> updater.update("d", current -> {
      updater.update("d", doc -> replaced(doc, "nested"));
      return replaced(current, "outer");
    })).isInstanceOf(IllegalStateException.class).hasMessageContaining("must be pure");
    updater.update("d", current -> {
      updater.update("other", doc -> replaced(doc, "nested")); // another document: runs alone
      return replaced(current, "outer");
    });
    assertThat(stored("d").getList("log", String.class)).containsExactly("outer");
    assertThat(stored("other").getList("log", String.class)).containsExactly("nested");
  }

  @Test
  void theBuilderNamesWhatItRefuses() {
    LockService lease = MongoLeaseLockService.builder(database(), "locks").build();
    closing.add(lease);
    assertThatThrownBy(() -> LockedUpdater.builder(real, lease).fencing(false)
        .versionFilter(false).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'mongo'");
    assertThat(LockedUpdater.builder(real, LocalLockService.create()).fencing(false)
        .versionFilter(false).build().groupCommit()).isTrue();
    assertThatThrownBy(() -> LockedUpdater.builder(real, lease).lockWait(Duration.ZERO))
        .hasMessageContaining("lockWait");
    assertThatThrownBy(() -> LockedUpdater.builder(real, lease).maxBatchSize(0))
        .hasMessageContaining("maxBatchSize").hasMessageContaining("0");
    assertThatThrownBy(() -> LockedUpdater.builder(real, lease).fenceField("a.b"))
        .hasMessageContaining("a.b");
    assertThatThrownBy(() -> LockedUpdater.builder(real, lease).fenceField("version").build())
        .hasMessageContaining("version");
    assertThatThrownBy(() -> LockedUpdater.builder(
        real.withWriteConcern(com.mongodb.WriteConcern.UNACKNOWLEDGED), lease))
        .hasMessageContaining("acknowledged");
  }
}
