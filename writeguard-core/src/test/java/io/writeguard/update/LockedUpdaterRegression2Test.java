package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.update.LockedTesting.acquiringThrough;
import static io.writeguard.update.LockedTesting.awaitAtMost;
import static io.writeguard.update.LockedTesting.failureOf;
import static io.writeguard.update.LockedTesting.failureWithin;
import static io.writeguard.update.LockedTesting.replaced;
import static io.writeguard.update.LockedTesting.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.internal.DocumentKey;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedTesting.HeldBatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonSymbol;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression tests of LockedUpdater from the second adversarial review (of the first review's
 * fixes): each forces the input or interleaving that broke a promise, and failed before its fix.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LockedUpdaterRegression2Test {
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("LockedRegression2").getCollection("docs");
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

  private void insert(Object id) {
    real.insertOne(new Document("_id", id).append("n", 0L).append("log", List.of())
        .append("version", 0L));
  }

  private List<String> log(Object id) {
    return real.find(eq("_id", id)).first().getList("log", String.class);
  }

  private static DocumentKey key(Object id) {
    return DocumentKey.of(id, MongoClientSettings.getDefaultCodecRegistry());
  }

  // ---------------------------------------------------------------------------------------
  // Was: DocumentKey's canonical text is ambiguous: a number (or date) is not delimited, and
  // the next field's length prefix is digits, so "#1" + "12:..." reads the same as
  // "#11" + "2:...". Two different documents get one key: one queue, one batch, read by the
  // leader's id: the other document's update is applied to the leader's document.

  @Test
  void twoDifferentCompoundIdsNeverShareABatch() throws Exception {
    Document a = new Document("a", 1).append("xxb16:yyyyyy", null);
    Document b = new Document("a", 11).append("xx", true).append("yyyyyy", null);
    insert(a);
    insert(b);
    assertThat(key(a)).as("keys of two different documents").isNotEqualTo(key(b));
  }

  @Test
  void anUpdateOfOneDocumentIsNeverAppliedToAnother() throws Exception {
    Document a = new Document("a", 1).append("xxb16:yyyyyy", null);
    Document b = new Document("a", 11).append("xx", true).append("yyyyyy", null);
    insert(a);
    insert(b);
    VersionedUpdater updater = VersionedUpdater.builder(real).build(); // group commit on
    HeldBatch held = new HeldBatch(pool, m -> updater.update(a, m),
        () -> updater.waiting(a), c -> replaced(c, "a0"));
    Future<UpdateOutcome> a1 = held.queue(c -> replaced(c, "a1"));
    // Another document: not queued behind a's held batch, it goes through at once.
    UpdateOutcome bOut = pool.submit(() -> updater.update(b, c -> replaced(c, "b2")))
        .get(20, TimeUnit.SECONDS);
    assertThat(updater.waiting(a)).isEqualTo(1);
    held.release();
    a1.get(20, TimeUnit.SECONDS);

    assertThat(log(b)).as("document b after b's acknowledged update (b's outcome id: %s)",
        bOut.id()).containsExactly("b2");
    assertThat(log(a)).as("document a").containsExactly("a0", "a1");
  }

  // ---------------------------------------------------------------------------------------
  // Was: lockText is not "the same for the same document": a string and a symbol are one _id
  // to MongoDB (one canonical type, compared by their text; the keys are equal here too), but
  // the string's lock text is "k" and the symbol's is the canonical "s1:k": two locks for one
  // document. With a lease lock, fresh keys hand out the same token, so the fence does not
  // separate them either (see twoSpellingsOfOneIdTakeOneLeaseLock in the regression test).

  @Test
  void aStringAndASymbolOfOneTextTakeOneLock() throws Exception {
    assertThat(key("k")).isEqualTo(key(new BsonSymbol("k"))); // one document, says the key
    insert("k");
    LocalLockService local = LocalLockService.create();
    AtomicBoolean aHolds = new AtomicBoolean();
    AtomicReference<String> heldTogether = new AtomicReference<>();
    LockService recording = acquiringThrough(local, (key, waitTimeout) -> {
      LockHandle h = local.acquire(key, waitTimeout);
      if (!key.equals("docs:k")) { // the symbol's lock: stop before the (embedded) server
        heldTogether.set(aHolds.get() ? "docs:k and " + key : null);
        h.close();
        throw new IllegalStateException("stop: symbols crash the embedded server");
      }
      return h;
    });
    LockedUpdater updater = LockedUpdater.builder(real, recording).groupCommit(false)
        .fencing(false).versionFilter(false).lockWait(Duration.ofSeconds(3)).build();
    CountDownLatch release = new CountDownLatch(1);
    Future<UpdateOutcome> asString = pool.submit(() -> updater.update("k", c -> {
      aHolds.set(true);
      awaitAtMost(release, Duration.ofSeconds(30));
      aHolds.set(false);
      return replaced(c, "string");
    }));
    waitUntil(aHolds::get);
    Future<UpdateOutcome> asSymbol =
        pool.submit(() -> updater.update(new BsonSymbol("k"), c -> replaced(c, "symbol")));
    failureOf(asSymbol);
    release.countDown();
    asString.get(20, TimeUnit.SECONDS);
    assertThat(heldTogether.get()).as("two locks of one document held at once").isNull();
  }

  // ---------------------------------------------------------------------------------------
  // Was: "The leader's interrupt waits until its batch is done" holds only for the lock wait
  // and the backoff. Interrupted while the batch runs (a mutator, a round trip), the flag
  // stays set; the driver refuses the next command at connection checkout
  // (MongoInterruptedException), which the write path classifies as OUTCOME_UNKNOWN: every
  // caller of the batch gets WriteOutcomeUnknownException for a write that was never sent.

  @Test
  void anInterruptOfTheLeaderWhileItsBatchRunsFailsNobody() throws Exception {
    insert("d");
    LockedUpdater updater = LockedUpdater.builder(real, LocalLockService.create())
        .listener(listener).lockWait(Duration.ofSeconds(20)).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("d", m),
        () -> updater.waiting("d"), c -> replaced(c, "first"));
    AtomicReference<Thread> leaderThread = new AtomicReference<>();
    CountDownLatch leaderInside = new CountDownLatch(1);
    AtomicBoolean go = new AtomicBoolean();
    AtomicBoolean leaderFlag = new AtomicBoolean();
    Future<UpdateOutcome> leader = pool.submit(() -> {
      leaderThread.set(Thread.currentThread());
      try {
        return updater.update("d", c -> {
          leaderInside.countDown();
          while (!go.get()) {
            Thread.onSpinWait(); // does not clear the flag
          }
          return replaced(c, "leader");
        });
      } finally {
        leaderFlag.set(Thread.interrupted());
      }
    });
    waitUntil(() -> updater.waiting("d") == 1);
    Future<UpdateOutcome> b = held.queue(c -> replaced(c, "b"));
    held.release();
    assertThat(leaderInside.await(20, TimeUnit.SECONDS)).isTrue(); // leader runs [leader, b]
    leaderThread.get().interrupt();
    go.set(true);

    Throwable leaderFailure = failureOf(leader);
    Throwable bFailure = failureOf(b);
    assertThat(leaderFlag).as("the leader's flag, restored").isTrue();
    assertThat(bFailure).as("b, never interrupted (stored: %s)", log("d")).isNull();
    assertThat(leaderFailure).as("the leader (stored: %s)", log("d")).isNull();
  }

  // ---------------------------------------------------------------------------------------
  // Was: BatchUpdate restores the leader's deferred (backoff) interrupt at the end of its
  // batch, which is still inside LockedUpdater's lock hold: the release then runs on an
  // interrupted thread, the driver refuses it, and the MongoDB lease stays taken until it runs
  // out (30 s by default): every other process waits for a lock nobody holds.

  @Test
  void anInterruptDeferredDuringTheBackoffDoesNotKeepTheLeaseLockTaken() throws Exception {
    insert("d");
    var db = TestMongo.client().getDatabase(real.getNamespace().getDatabaseName());
    MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "locks").build();
    MongoLeaseLockService otherProcess = MongoLeaseLockService.builder(db, "locks").build();
    closing.add(locks);
    closing.add(otherProcess);
    LockedUpdater updater = LockedUpdater.builder(real, locks).lockWait(Duration.ofSeconds(20))
        // the backoff's sleep interrupted (Thread.sleep clears the flag as it throws)
        .sleeper(d -> {
          throw new InterruptedException("interrupted during the backoff");
        })
        .build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("d", m),
        () -> updater.waiting("d"), c -> replaced(c, "first"));
    AtomicBoolean bypassOnce = new AtomicBoolean(true);
    AtomicBoolean leaderFlag = new AtomicBoolean();
    Future<UpdateOutcome> leader = pool.submit(() -> {
      try {
        return updater.update("d", c -> {
          if (bypassOnce.getAndSet(false)) { // a writer bypassing the lock: one conflict
            real.updateOne(eq("_id", "d"), Updates.inc("version", 1L));
          }
          return replaced(c, "leader");
        });
      } finally {
        leaderFlag.set(Thread.interrupted());
      }
    });
    waitUntil(() -> updater.waiting("d") == 1);
    Future<UpdateOutcome> b = held.queue(c -> replaced(c, "b"));
    held.release();
    assertThat(failureOf(leader)).isNull();
    assertThat(failureOf(b)).isNull();
    assertThat(leaderFlag).as("the deferred interrupt, restored").isTrue();
    assertThat(log("d")).containsExactly("first", "leader", "b");

    Optional<LockHandle> next = otherProcess.tryAcquire("docs:d");
    next.ifPresent(LockHandle::close);
    assertThat(next).as("the lock, free once the batch is done (lock documents: %s)",
        db.getCollection("locks").find().into(new ArrayList<>())).isPresent();
  }

  // ---------------------------------------------------------------------------------------
  // Was: usableFilter admits Long.MAX_VALUE - 1 (expectedVersion accepts it), and the claim
  // raises it to Long.MAX_VALUE before expectedVersion looks: the update is then refused
  // (InvalidVersionException AT_MAXIMUM, "nothing was written") although the claim has
  // written the version and the fence. Low severity (no real document gets there), but it
  // breaks "refused ... and left as it was".

  @Test
  void aClaimRefusedForItsVersionLeavesTheDocumentAsItWas() {
    real.insertOne(new Document("_id", "w").append("n", 0L).append("log", List.of())
        .append("version", Long.MAX_VALUE - 1));
    Document before = real.find(eq("_id", "w")).first();
    LockedUpdater updater = LockedUpdater.builder(real, LocalLockService.create()).build();
    Throwable failure = null;
    try {
      updater.update("w", c -> replaced(c, "locked"));
    } catch (RuntimeException e) {
      failure = e;
    }
    Document after = real.find(eq("_id", "w")).first();
    assertThat(failure).as("the failure").isInstanceOf(
        io.writeguard.version.InvalidVersionException.class);
    assertThat(after).as("failure %s; the document, refused, left as it was", failure)
        .isEqualTo(before);
  }

  // ---------------------------------------------------------------------------------------
  // Was: a caller alone no longer fails promptly on interrupt: as "leader" of a batch of one it
  // clears its flag and keeps waiting for the lock (up to lockWait), then writes. With group
  // commit off the same caller gets WriteGuardInterruptedException at once, nothing written.

  @Test
  void aLoneCallerInterruptedWhileWaitingForTheLockStopsPromptly() throws Exception {
    insert("k");
    LocalLockService locks = LocalLockService.create();
    LockedUpdater updater = LockedUpdater.builder(real, locks)
        .lockWait(Duration.ofSeconds(20)).build();
    LockHandle other = locks.acquire("docs:k", Duration.ofSeconds(5)); // another holder
    AtomicReference<Thread> caller = new AtomicReference<>();
    Future<UpdateOutcome> lone = pool.submit(() -> {
      caller.set(Thread.currentThread());
      return updater.update("k", c -> replaced(c, "lone"));
    });
    waitUntil(() -> locks.waiting("docs:k") == 1);
    caller.get().interrupt();
    Throwable outcome = failureWithin(lone, Duration.ofSeconds(2));
    other.close();
    failureOf(lone);
    assertThat(outcome).as("2 s after its interrupt (stored afterwards: %s)", log("k"))
        .isInstanceOf(WriteGuardInterruptedException.class);
  }

  // ---------------------------------------------------------------------------------------
  // Was: the lock text of a non-integral or huge number is its exact decimal expansion: 1e300
  // gives a 301-character key (MongoDB lease lock: max 256), Double.MIN_VALUE 1077 characters
  // (local lock: max 1024). Legal _ids that VersionedUpdater updates fine can no longer be
  // updated under a lock (IllegalArgumentException); before, the key was "docs:1.0E300".

  @Test
  void everyNumericIdCanBeUpdatedUnderALock() {
    insert(Double.MIN_VALUE);
    VersionedUpdater.builder(real).build().update(Double.MIN_VALUE, c -> replaced(c, "v"));
    LockedUpdater updater = LockedUpdater.builder(real, LocalLockService.create()).build();
    Throwable failure = null;
    try {
      updater.update(Double.MIN_VALUE, c -> replaced(c, "locked"));
    } catch (RuntimeException e) {
      failure = e;
    }
    assertThat(failure).as("update of _id Double.MIN_VALUE under a local lock").isNull();
  }

  // ---------------------------------------------------------------------------------------
  // Was: "The listener hears, for every update, exactly one of onSuccess, onExhausted or
  // onFailure": a caller withdrawn from the queue by its interrupt hears none (with group
  // commit off, the same interrupt during the lock wait is reported as a failure).

  @Test
  void aQueuedCallerWithdrawnByItsInterruptHearsOneTerminalEvent() throws Exception {
    insert("d");
    LockedUpdater updater = LockedUpdater.builder(real, LocalLockService.create())
        .listener(listener).lockWait(Duration.ofSeconds(20)).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("d", m),
        () -> updater.waiting("d"), c -> replaced(c, "first"));
    AtomicReference<Thread> queued = new AtomicReference<>();
    Future<UpdateOutcome> second = pool.submit(() -> {
      queued.set(Thread.currentThread());
      return updater.update("d", c -> replaced(c, "second"));
    });
    waitUntil(() -> updater.waiting("d") == 1);
    queued.get().interrupt();
    assertThat(failureOf(second)).isInstanceOf(WriteGuardInterruptedException.class);
    held.release();
    assertThat(events).as("terminal events of two updates")
        .containsExactlyInAnyOrder("success", "failure:CombineInterruptedException");
  }

  // ---------------------------------------------------------------------------------------
  // Was: "two documents may share [a lock key] ("7" and 7), which only makes them wait for each
  // other" - unless one is updated from the other's mutator (nested updates of another
  // document are supported and run alone): the nested update waits for the lock its own thread
  // holds (locks are not reentrant) until lockWait, then fails with LockTimeoutException.

  @Test
  void aNestedUpdateOfAnotherDocumentDoesNotWaitForItsOwnThread() {
    insert("7");
    insert(7);
    LockedUpdater updater = LockedUpdater.builder(real, LocalLockService.create())
        .lockWait(Duration.ofSeconds(2)).build();
    Throwable failure = null;
    try {
      updater.update("7", c -> {
        updater.update(7, inner -> replaced(inner, "nested"));
        return replaced(c, "outer");
      });
    } catch (RuntimeException e) {
      failure = e;
    }
    assertThat(failure).as("outer update of \"7\" with a nested update of 7").isNull();
  }
}
