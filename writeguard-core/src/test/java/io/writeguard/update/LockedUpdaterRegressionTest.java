package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.update.LockedTesting.awaitAtMost;
import static io.writeguard.update.LockedTesting.everyoneAt;
import static io.writeguard.update.LockedTesting.failureOf;
import static io.writeguard.update.LockedTesting.replaced;
import static io.writeguard.update.LockedTesting.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.Concurrently;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedTesting.HeldBatch;
import io.writeguard.update.LockedTesting.ScriptedLocks;
import io.writeguard.version.InvalidVersionException;
import io.writeguard.version.VersionPolicy;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression tests of LockedUpdater, one per finding of its adversarial review: each forces the
 * interleaving or input that broke a promise of docs/locks.md, and failed before its fix.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockedUpdaterRegressionTest {
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("LockedRegression").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final LockedTesting.TerminalEvents listener = new LockedTesting.TerminalEvents();
  private final List<String> events = listener.events;
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    pool.shutdownNow();
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private LockedUpdater.Builder builder(LockService locks) {
    return LockedUpdater.builder(real, locks).listener(listener)
        .lockWait(Duration.ofSeconds(20));
  }

  // ---------------------------------------------------------------------------------------
  // Was: the lock key was prefix + String.valueOf(id), not the document's identity.

  /**
   * A binary _id passed as byte[] (the natural Java type for it): String.valueOf(byte[]) is
   * "[B@<identity hash>", so every call locks a different key and the in-process lock excludes
   * nothing: the seed's "ObjectIds compared by reference" bug again. The build accepts this
   * configuration for a local lock and documents it as safe ("the seed's own fix").
   */
  @Test
  void byteArrayIdsMeetAtTheInProcessLock() throws Exception {
    real.insertOne(new Document("_id", new byte[] {1, 2, 3}).append("n", 0L)
        .append("log", List.of()).append("version", 0L));
    LockedUpdater updater = builder(LocalLockService.create())
        .fencing(false).versionFilter(false).build();
    CountDownLatch bothInside = new CountDownLatch(2);
    Concurrently.run(2, Duration.ofSeconds(30), t ->
        updater.update(new byte[] {1, 2, 3}, current -> {
          bothInside.countDown();
          awaitAtMost(bothInside, Duration.ofSeconds(3)); // under a working lock the second cannot get here: 3 s, then on
          return replaced(current, "t" + t);
        }));

    Document doc = real.find(eq("_id", new byte[] {1, 2, 3})).first();
    assertThat(doc.getList("log", String.class)).as("both acknowledged updates").hasSize(2);
  }

  /** Control for the two above: the same set-ups with one spelling of the id. */
  @Test
  void oneSpellingOfTheIdKeepsEveryUpdate() throws Exception {
    real.insertOne(new Document("_id", "k").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    MongoLeaseLockService lease = MongoLeaseLockService.builder(
        TestMongo.client().getDatabase(real.getNamespace().getDatabaseName()), "locks").build();
    closing.add(lease);
    for (LockedUpdater updater : List.of(
        builder(LocalLockService.create()).fencing(false).versionFilter(false).build(),
        builder(lease).versionFilter(false).build())) {
      Concurrently.run(2, Duration.ofSeconds(30), t ->
          updater.update("k", current -> replaced(current, "t" + t)));
    }
    assertThat(real.find(eq("_id", "k")).first().getList("log", String.class)).hasSize(4);
  }

  /**
   * The same id in two Java representations (String / BsonString, which MongoDB matches to one
   * document) gives two lock keys. Lease-lock tokens are per key, so both fresh keys hand out
   * the same token: the fence ($lte token) lets both writers through. This is the lab's and
   * MongoLockTwoProcessTest's setting (fence on, versionFilter(false)).
   */
  @Test
  void twoSpellingsOfOneIdTakeOneLeaseLock()
      throws Exception {
    real.insertOne(new Document("_id", "k").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    MongoLeaseLockService locks = MongoLeaseLockService.builder(
        TestMongo.client().getDatabase(real.getNamespace().getDatabaseName()), "locks").build();
    closing.add(locks);
    LockedUpdater updater = builder(locks).versionFilter(false).build();
    List<Object> ids = List.of("k", new BsonString("k"));
    CountDownLatch bothInside = new CountDownLatch(2);
    Concurrently.run(2, Duration.ofSeconds(30), t ->
        updater.update(ids.get(t), current -> {
          bothInside.countDown();
          awaitAtMost(bothInside, Duration.ofSeconds(3));
          return replaced(current, "t" + t);
        }));

    List<Document> lockDocs = TestMongo.client()
        .getDatabase(real.getNamespace().getDatabaseName()).getCollection("locks").find()
        .into(new ArrayList<>());
    assertThat(real.find(eq("_id", "k")).first().getList("log", String.class))
        .as("both acknowledged updates (lock documents: %s)", lockDocs).hasSize(2);
  }

  // ---------------------------------------------------------------------------------------
  // Was: the claim ($inc of the version) ran before the version policy was consulted.

  @Test
  void aLegacyDocumentUnderMissingVersionRefuseIsRefusedUnclaimed() {
    real.insertOne(new Document("_id", "legacy").append("n", 0L).append("log", List.of()));
    VersionPolicy refuse = VersionPolicy.builder()
        .missingVersion(VersionPolicy.MissingVersion.REFUSE).build();
    // Control: VersionedUpdater refuses it and leaves it alone.
    VersionedUpdater versioned = VersionedUpdater.builder(real).versionPolicy(refuse).build();
    assertThatThrownBy(() -> versioned.update("legacy", c -> replaced(c, "v")))
        .isInstanceOf(InvalidVersionException.class);

    LockedUpdater locked = builder(LocalLockService.create()).versionPolicy(refuse).build();
    Throwable thrown = null;
    try {
      locked.update("legacy", c -> replaced(c, "locked"));
    } catch (RuntimeException e) {
      thrown = e;
    }
    Document doc = real.find(eq("_id", "legacy")).first();
    assertThat(doc.getList("log", String.class)).as("a refused document gets no update")
        .isEmpty();
    assertThat(doc.containsKey("version")).as("nor a version").isFalse();
    assertThat(thrown).isInstanceOf(InvalidVersionException.class);
  }

  @Test
  void aNegativeVersionIsRefusedNotRepairedByTheClaim() {
    real.insertOne(new Document("_id", "neg").append("n", 0L).append("log", List.of())
        .append("version", -1L));
    VersionedUpdater versioned = VersionedUpdater.builder(real).build();
    assertThatThrownBy(() -> versioned.update("neg", c -> replaced(c, "v")))
        .isInstanceOf(InvalidVersionException.class);

    LockedUpdater locked = builder(LocalLockService.create()).build();
    assertThatThrownBy(() -> locked.update("neg", c -> replaced(c, "locked")))
        .isInstanceOf(InvalidVersionException.class);
  }

  @Test
  void aDoubleVersionIsRefusedAndLeftAsItWas() {
    real.insertOne(new Document("_id", "dbl").append("n", 0L).append("log", List.of())
        .append("version", 2.5));
    LockedUpdater locked = builder(LocalLockService.create()).build();
    assertThatThrownBy(() -> locked.update("dbl", c -> replaced(c, "locked")))
        .isInstanceOf(InvalidVersionException.class);
    assertThat(real.find(eq("_id", "dbl")).first().get("version"))
        .as("a refused call leaves the document as it was").isEqualTo(2.5);
  }

  // ---------------------------------------------------------------------------------------
  // Was: a nested update of the same document was refused at once in one set-up only.

  @Test
  void aNestedUpdateOfItsOwnDocumentWithGroupCommitOffIsRefusedAtOnce() {
    real.insertOne(new Document("_id", "d").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    LockedUpdater updater = builder(LocalLockService.create()).groupCommit(false)
        .lockWait(Duration.ofSeconds(3)).build();
    long start = System.nanoTime();
    Throwable thrown = null;
    try {
      updater.update("d", current -> {
        updater.update("d", doc -> replaced(doc, "nested"));
        return replaced(current, "outer");
      });
    } catch (RuntimeException e) {
      thrown = e;
    }
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(thrown).as("took %d ms", tookMs).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("must be pure");
  }

  @Test
  void aNestedUpdateOfItsOwnDocumentUnderAnotherIdTypeIsRefusedAtOnce() {
    real.insertOne(new Document("_id", 7).append("n", 0L).append("log", List.of())
        .append("version", 0L));
    LockedUpdater updater = builder(LocalLockService.create())
        .lockWait(Duration.ofSeconds(3)).build();
    long start = System.nanoTime();
    Throwable thrown = null;
    try {
      updater.update(7, current -> {
        updater.update(7L, doc -> replaced(doc, "nested")); // same document, same lock key
        return replaced(current, "outer");
      });
    } catch (RuntimeException e) {
      thrown = e;
    }
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(thrown).as("took %d ms", tookMs).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("must be pure");
  }

  // ---------------------------------------------------------------------------------------
  // Listener: exactly one of onSuccess, onExhausted, onFailure per update (was: 0 or 2).

  @Test
  void anUpdateThatSucceedsAfterAFencedRejectionEndsInOneSuccessEvent() {
    real.insertOne(new Document("_id", "d").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    ScriptedLocks firstHandleLost = new ScriptedLocks(new AtomicLong()::incrementAndGet);
    firstHandleLost.nextIsLost = true;
    LockedUpdater updater = builder(firstHandleLost).build();
    UpdateOutcome outcome = updater.update("d", c -> replaced(c, "x"));
    assertThat(outcome.fencedRejections()).isEqualTo(1);
    assertThat(events).as("one update, one terminal event").containsExactly("success");
  }

  @Test
  void aLockTimeoutEndsInOneFailureEvent() {
    real.insertOne(new Document("_id", "d").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    LocalLockService locks = LocalLockService.create();
    LockHandle blocker = locks.acquire("docs:d", Duration.ofSeconds(1));
    LockedUpdater updater = builder(locks).lockWait(Duration.ofMillis(100)).build();
    assertThatThrownBy(() -> updater.update("d", c -> replaced(c, "x")))
        .isInstanceOf(LockTimeoutException.class);
    blocker.close();
    assertThat(events).as("one update, one terminal event").hasSize(1);
  }

  // ---------------------------------------------------------------------------------------
  // Builder validation (was: both accepted).

  @Test
  void aLockWaitTooLongForNanosecondsWaitsAsIfForever() {
    real.insertOne(new Document("_id", "d").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    // LockArguments: "durations too long for a long wait forever"; the builder accepts it too.
    LockedUpdater updater = builder(LocalLockService.create())
        .lockWait(Duration.ofDays(365L * 1000)).build();
    assertThat(updater.update("d", c -> replaced(c, "x")).written()).isTrue();
  }

  @Test
  void theLongestLockWaitADurationHoldsWaitsAsIfForever() {
    real.insertOne(new Document("_id", "d").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    // "forever" as java.time spells it: the wait plus the update's deadline must not overflow
    LockedUpdater updater = builder(LocalLockService.create())
        .lockWait(ChronoUnit.FOREVER.getDuration()).build();
    assertThat(updater.update("d", c -> replaced(c, "x")).written()).isTrue();
  }

  @Test
  void theFenceFieldCannotBeId() {
    real.insertOne(new Document("_id", "d").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    assertThatThrownBy(() -> builder(LocalLockService.create()).fenceField("_id").build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---------------------------------------------------------------------------------------
  // Was: the leader's interrupt failed every caller of its batch.

  @Test
  void anInterruptOfTheLeaderWaitsUntilItsBatchIsDoneAndFailsNobody() throws Exception {
    real.insertOne(new Document("_id", "d").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    LocalLockService locks = LocalLockService.create();
    LockedUpdater updater = builder(locks).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("d", m),
        () -> updater.waiting("d"), c -> replaced(c, "first"));
    AtomicReference<Thread> leaderThread = new AtomicReference<>();
    AtomicBoolean leaderFlag = new AtomicBoolean();
    Future<UpdateOutcome> leader = pool.submit(() -> {
      leaderThread.set(Thread.currentThread());
      UpdateOutcome out = updater.update("d", c -> replaced(c, "leader"));
      leaderFlag.set(Thread.interrupted());
      return out;
    });
    waitUntil(() -> updater.waiting("d") == 1);
    Future<UpdateOutcome> b = held.queue(c -> replaced(c, "b"));
    // Another process-like holder queues for the lock behind the first batch's hold.
    CountDownLatch blockerHas = new CountDownLatch(1);
    CountDownLatch blockerGo = new CountDownLatch(1);
    Future<?> blocker = pool.submit(() -> {
      try (LockHandle h = locks.acquire("docs:d", Duration.ofSeconds(20))) {
        blockerHas.countDown();
        awaitAtMost(blockerGo, Duration.ofSeconds(30));
      }
      return null;
    });
    waitUntil(() -> locks.waiting("docs:d") == 1);
    held.release();
    assertThat(blockerHas.await(20, TimeUnit.SECONDS)).isTrue();
    // The next leader (oldest queued) took [leader, b] and now waits for the lock.
    waitUntil(() -> locks.waiting("docs:d") == 1);
    leaderThread.get().interrupt();
    Thread.sleep(200);
    blockerGo.countDown();
    blocker.get(20, TimeUnit.SECONDS);

    // The leader's interrupt waits until its batch is done: nobody of the batch fails for it.
    assertThat(failureOf(leader)).as("the interrupted leader's own update").isNull();
    assertThat(leaderFlag).as("its interrupt flag, restored").isTrue();
    assertThat(failureOf(b)).as("b was never interrupted; the lock was free 200 ms later")
        .isNull();
    assertThat(real.find(eq("_id", "d")).first().getList("log", String.class))
        .containsExactly("first", "leader", "b");
  }

  // ---------------------------------------------------------------------------------------
  // Was: an Error thrown by a listener after a combined write failed callers whose change was
  // stored.

  @Test
  void anErrorFromTheListenerAfterTheCombinedWriteFailsNobodyWhoseChangeIsStored()
      throws Exception {
    real.insertOne(new Document("_id", "d").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    java.util.concurrent.atomic.AtomicInteger successes =
        new java.util.concurrent.atomic.AtomicInteger();
    WriteGuardListener throwing = new WriteGuardListener() {
      @Override
      public void onSuccess(OperationScope scope, Object key, int attempts, Duration elapsed) {
        if (successes.incrementAndGet() == 2) { // first's is 1; b's (in the batch [b, c]) is 2
          throw new AssertionError("a listener bug");
        }
      }
    };
    LockedUpdater updater = LockedUpdater.builder(real, LocalLockService.create())
        .listener(throwing).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("d", m),
        () -> updater.waiting("d"), c -> replaced(c, "first"));
    Future<UpdateOutcome> b = held.queue(c -> replaced(c, "b"));
    Future<UpdateOutcome> c2 = held.queue(c -> replaced(c, "c"));
    held.release();
    Throwable bFailure = failureOf(b);
    Throwable cFailure = failureOf(c2);

    assertThat(real.find(eq("_id", "d")).first().getList("log", String.class))
        .containsExactly("first", "b", "c");
    assertThat(bFailure).as("b's change is stored").isNull();
    assertThat(cFailure).as("c's change is stored").isNull();
  }

  // ---------------------------------------------------------------------------------------
  // Was: a StaleLockException thrown by the mutator itself was taken for the updater's own
  // fence rejection: the mutator ran again (3 times), and whatever it did ran again with it.

  @Test
  void aMutatorsOwnStaleLockExceptionReachesItsCallerUnchangedAndUnretried() {
    for (String id : List.of("a", "b", "c")) {
      real.insertOne(new Document("_id", id).append("n", 0L).append("log", List.of())
          .append("version", 0L));
    }
    real.updateOne(eq("_id", "c"), com.mongodb.client.model.Updates.set("_fence", Long.MAX_VALUE));
    LockedUpdater updater = builder(LocalLockService.create()).build();
    java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
    Throwable thrown = null;
    try {
      updater.update("a", current -> {
        runs.incrementAndGet();
        updater.update("b", doc -> replaced(doc, "from-a")); // another document: runs alone
        updater.update("c", doc -> replaced(doc, "from-a")); // refused by c's fence
        return replaced(current, "a");
      });
    } catch (RuntimeException e) {
      thrown = e;
    }
    assertThat(thrown).isInstanceOf(io.writeguard.lock.StaleLockException.class);
    assertThat(real.find(eq("_id", "b")).first().getList("log", String.class))
        .as("b was updated by a's mutator once per run of it (runs=%d)", runs.get())
        .hasSize(1);
    assertThat(runs.get()).as("a mutator that throws fails only its caller, unchanged")
        .isEqualTo(1);
  }

  // ---------------------------------------------------------------------------------------
  // Was: with versionFilter(false) the claim did not move the version, so a VersionedUpdater
  // replace that read before the claim wrote the OLD fence back; the stale holder's write then
  // passed the fence, was acknowledged, and was erased by the valid holder's write.

  @Test
  void withoutTheVersionFilterAReplacingWriterCannotLowerTheFenceForAStaleHolder()
      throws Exception {
    real.insertOne(new Document("_id", "d").append("n", 0L).append("log", List.of())
        .append("version", 0L));
    // The lab's setting: fence on, versionFilter(false). Token 10 is the holder whose lease ran
    // out during a pause; token 20 the holder that took over.
    LockedUpdater stale = builder(everyoneAt(10)).versionFilter(false).groupCommit(false).build();
    LockedUpdater fresh = builder(everyoneAt(20)).versionFilter(false).groupCommit(false).build();
    VersionedUpdater bypass = VersionedUpdater.builder(real).groupCommit(false).build();
    CountDownLatch sClaimed = new CountDownLatch(1);
    CountDownLatch sGo = new CountDownLatch(1);
    CountDownLatch vRead = new CountDownLatch(1);
    CountDownLatch vGo = new CountDownLatch(1);
    CountDownLatch nClaimed = new CountDownLatch(1);
    CountDownLatch nGo = new CountDownLatch(1);
    AtomicBoolean vFirst = new AtomicBoolean(true);
    Future<UpdateOutcome> s = pool.submit(() -> stale.update("d", c -> {
      sClaimed.countDown();
      awaitAtMost(sGo, Duration.ofSeconds(30));
      return replaced(c, "stale");
    }));
    assertThat(sClaimed.await(20, TimeUnit.SECONDS)).isTrue();
    Future<UpdateOutcome> v = pool.submit(() -> bypass.update("d", c -> {
      if (vFirst.getAndSet(false)) {
        vRead.countDown();
        awaitAtMost(vGo, Duration.ofSeconds(30));
      }
      return replaced(c, "bypass");
    }));
    assertThat(vRead.await(20, TimeUnit.SECONDS)).isTrue();
    Future<UpdateOutcome> n = pool.submit(() -> fresh.update("d", c -> {
      nClaimed.countDown();
      awaitAtMost(nGo, Duration.ofSeconds(30));
      return replaced(c, "fresh");
    }));
    assertThat(nClaimed.await(20, TimeUnit.SECONDS)).isTrue();
    assertThat(real.find(eq("_id", "d")).first().getLong("_fence")).isEqualTo(20L);
    vGo.countDown();
    v.get(20, TimeUnit.SECONDS);
    Document afterBypass = real.find(eq("_id", "d")).first();
    sGo.countDown(); // the stale holder (token 10) writes now, after token 20 claimed
    Throwable staleFailure = failureOf(s);
    nGo.countDown();
    UpdateOutcome freshOutcome = n.get(20, TimeUnit.SECONDS);

    assertThat(freshOutcome.written()).isTrue();
    Document doc = real.find(eq("_id", "d")).first();
    String story = "fence after the bypass write: " + afterBypass.get("_fence")
        + "; stale holder's result: " + (staleFailure == null ? "acknowledged" : staleFailure)
        + "; final document: " + doc.toJson();
    assertThat(staleFailure).as("the stale holder (token 10) is refused by the fence (%s)",
        story).isInstanceOf(io.writeguard.lock.StaleLockException.class);
  }

  // ---------------------------------------------------------------------------------------
  // Was: compound _ids: Java's Document.equals ignores field order, MongoDB does not. The
  // combiner queued updates of two different documents under one key, and the batch ran them
  // all on the leader's document.

  @Test
  void compoundIdsWithTheirFieldsInAnotherOrderAreTwoDocumentsNeverOneBatch()
      throws Exception {
    Document ab = new Document("a", 1).append("b", 2);
    Document ba = new Document("b", 2).append("a", 1);
    real.insertOne(new Document("_id", ab).append("n", 0L).append("log", List.of())
        .append("version", 0L));
    real.insertOne(new Document("_id", ba).append("n", 0L).append("log", List.of())
        .append("version", 0L));
    LockedUpdater updater = builder(LocalLockService.create()).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update(ab, m),
        () -> updater.waiting(ab), c -> replaced(c, "first"));
    Future<UpdateOutcome> y = held.queue(c -> replaced(c, "y"));
    // Another document: not queued behind {a:1, b:2}'s held batch, it goes through at once.
    UpdateOutcome xOut = pool.submit(() -> updater.update(ba, c -> replaced(c, "x")))
        .get(20, TimeUnit.SECONDS);
    assertThat(updater.waiting(ab)).isEqualTo(1);
    held.release();
    y.get(20, TimeUnit.SECONDS);

    assertThat(real.find(eq("_id", ab)).first().getList("log", String.class))
        .as("document {a:1, b:2}").containsExactly("first", "y");
    assertThat(real.find(eq("_id", ba)).first().getList("log", String.class))
        .as("document {b:2, a:1}, x's outcome id %s", xOut.id()).containsExactly("x");
  }

  /** The same with VersionedUpdater's group commit (same KeyedCombiner, same BatchUpdate). */
  @Test
  void versionedUpdaterNeverBatchesTwoCompoundIdsWithReorderedFields() throws Exception {
    Document ab = new Document("a", 1).append("b", 2);
    Document ba = new Document("b", 2).append("a", 1);
    real.insertOne(new Document("_id", ab).append("n", 0L).append("log", List.of())
        .append("version", 0L));
    real.insertOne(new Document("_id", ba).append("n", 0L).append("log", List.of())
        .append("version", 0L));
    VersionedUpdater updater = VersionedUpdater.builder(real).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update(ab, m),
        () -> updater.waiting(ab), c -> replaced(c, "first"));
    Future<UpdateOutcome> y = held.queue(c -> replaced(c, "y"));
    pool.submit(() -> updater.update(ba, c -> replaced(c, "x"))).get(20, TimeUnit.SECONDS);
    assertThat(updater.waiting(ab)).isEqualTo(1);
    held.release();
    y.get(20, TimeUnit.SECONDS);

    assertThat(real.find(eq("_id", ba)).first().getList("log", String.class))
        .as("document {b:2, a:1}").containsExactly("x");
    assertThat(real.find(eq("_id", ab)).first().getList("log", String.class))
        .as("document {a:1, b:2}").containsExactly("first", "y");
  }
}
