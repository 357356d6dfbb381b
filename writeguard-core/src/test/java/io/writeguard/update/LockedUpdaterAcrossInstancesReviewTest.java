package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.update.LockedTesting.failureOf;
import static io.writeguard.update.LockedTesting.replaced;
import static io.writeguard.update.LockedTesting.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.adaptive.AdaptivePolicy;
import io.writeguard.adaptive.AdaptiveUpdater;
import io.writeguard.adaptive.Route;
import io.writeguard.embedded.EmbeddedMongo;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.lock.StaleLockException;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.FakeTime;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.Document;
import org.bson.codecs.configuration.CodecRegistries;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Adversarial review of bf7251b (one per-thread record of nested holds shared by every
 * {@link LockedUpdater}): group commit, where a leader runs other callers' mutators on its
 * thread; every exit path of a hold on a pool thread; a held lock lent to another updater and
 * lost meanwhile; ids 7 / 7L / 7.0 / "7" across collections and registries;
 * the adaptive updater's locked route; and documents with the same namespace on two
 * deployments. Every wait is bounded; a wait for the thread's own lock ends in a lock timeout
 * the assertions tell apart.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LockedUpdaterAcrossInstancesReviewTest extends NestedUpdatesFixture {
  LockedUpdaterAcrossInstancesReviewTest() {
    super("LockedAcrossReview");
  }

  private static long fence(MongoCollection<Document> c, Object id) {
    return ((Number) c.find(eq("_id", id)).first().get("_fence")).longValue();
  }

  /** An updater of {@code c} whose documents are locked as "docs:<id>", as docs' are. */
  private static LockedUpdater sharingDocsKeys(MongoCollection<Document> c, LockService locks) {
    return LockedUpdater.builder(c, locks).lockWait(LOCK_WAIT).lockPrefix("docs:").build();
  }

  /** Scripted tokens 1, 2, 3, ... over an in-process lock that counts acquisitions. */
  private static LockedTesting.ScriptedLocks countingLocks() {
    AtomicLong tokens = new AtomicLong();
    return new LockedTesting.ScriptedLocks(tokens::incrementAndGet);
  }

  // ---------------------------------------------------------------------------------------
  // Finding (fixed): a namespace is not a deployment.
  // ---------------------------------------------------------------------------------------

  /**
   * Failed on bf7251b, which keyed held documents by (MongoNamespace, _id) alone: a namespace
   * is only the database and collection names, so the same names on another deployment (a
   * second cluster a mutator mirrors to, with its own lock service) were refused as "the same
   * document". Held documents are now keyed under their lock service too, and the mirrored
   * update runs, as it did before the change.
   */
  @Test
  void theSameNamespaceOnAnotherDeploymentIsAnotherDocument() throws Exception {
    EmbeddedMongo second = EmbeddedMongo.start();
    closing.add(second);
    MongoClient client = MongoClients.create(TestMongo.settings(second.uri()));
    closing.add(0, client);
    MongoCollection<Document> mirror = client.getDatabase(db.getName()).getCollection("docs");
    insert(docs, 1);
    insert(mirror, 1);
    LockedUpdater outer = updater(docs, LocalLockService.create());
    LockedUpdater mirrored = updater(mirror, LocalLockService.create()); // its own locks
    List<Throwable> nested = new ArrayList<>();
    UpdateOutcome written = onOneThread(() -> outer.update(1, c -> {
      nested.add(catchThrowable(() -> mirrored.update(1, d -> replaced(d, "mirror"))));
      return replaced(c, "outer");
    }));

    assertThat(nested).as("the mirrored update on the other deployment")
        .containsExactly((Throwable) null);
    assertThat(written.written()).isTrue();
    assertThat(log(mirror, 1)).containsExactly("mirror");
    assertThat(log(docs, 1)).containsExactly("outer");
  }

  // ---------------------------------------------------------------------------------------
  // Probes that held (regression tests).
  // ---------------------------------------------------------------------------------------

  /**
   * Group commit: the second batch's leader (the first follower) runs the second follower's
   * mutator on its own thread; that mutator updates a document of another collection keyed
   * "docs:1" through another updater. It runs under the batch's lock (no acquisition of its own,
   * the batch's token on both fences), and no lock wait for its own thread.
   */
  @Test
  void aFollowersNestedUpdateThroughAnotherUpdaterRunsUnderTheLeadersLock() throws Exception {
    insert(docs, 1);
    insert(others, 1);
    LockedTesting.ScriptedLocks locks = countingLocks();
    LockedUpdater outer = updater(docs, locks);
    LockedUpdater inner = sharingDocsKeys(others, locks);
    assertThat(outer.groupCommit()).isTrue();
    LockedTesting.HeldBatch held = new LockedTesting.HeldBatch(pool,
        m -> outer.update(1, m), () -> outer.waiting(1), c -> replaced(c, "first"));
    AtomicReference<Thread> leader = new AtomicReference<>();
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    List<Throwable> nested = new CopyOnWriteArrayList<>();
    Future<UpdateOutcome> f1 = held.queue(c -> {
      leader.set(Thread.currentThread());
      return replaced(c, "f1");
    });
    Future<UpdateOutcome> f2 = held.queue(c -> {
      ranOn.set(Thread.currentThread());
      nested.add(catchThrowable(() -> inner.update(1, d -> replaced(d, "inner"))));
      return replaced(c, "f2");
    });
    held.release();

    assertThat(failureOf(f1)).isNull();
    assertThat(failureOf(f2)).isNull();
    assertThat(ranOn.get()).as("f2's mutator ran on its batch's leader").isSameAs(leader.get());
    assertThat(nested).containsExactly((Throwable) null);
    assertThat(log(docs, 1)).containsExactly("first", "f1", "f2");
    assertThat(log(others, 1)).containsExactly("inner");
    assertThat(locks.acquired.get()).as("the first hold and the batch's; none nested").isEqualTo(2);
    assertThat(fence(others, 1)).isEqualTo(2L).isEqualTo(fence(docs, 1));
  }

  /**
   * Group commit: a follower's mutator, run by another caller's leader, updates the batch's own
   * document through another updater (as 1L): refused at once, failing that follower only; the
   * leader's thread then updates that document through either updater afresh.
   */
  @Test
  void aFollowersNestedUpdateOfItsOwnDocumentThroughAnotherUpdaterFailsOnlyIt() throws Exception {
    insert(docs, 1);
    LockedTesting.ScriptedLocks locks = countingLocks();
    LockedUpdater outer = updater(docs, locks);
    LockedUpdater second = updater(docs, locks);
    LockedTesting.HeldBatch held = new LockedTesting.HeldBatch(pool,
        m -> outer.update(1, m), () -> outer.waiting(1), c -> replaced(c, "first"));
    AtomicReference<Thread> leader = new AtomicReference<>();
    Future<UpdateOutcome> f1 = held.queue(c -> {
      leader.set(Thread.currentThread());
      return replaced(c, "f1");
    });
    Future<UpdateOutcome> f2 = held.queue(c -> {
      second.update(1L, d -> replaced(d, "never"));
      return replaced(c, "never");
    });
    Future<UpdateOutcome> f3 = held.queue(c -> replaced(c, "f3"));
    held.release();

    assertThat(failureOf(f1)).isNull();
    assertThat(failureOf(f2)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("_id=1").hasMessageContaining("mutators must be pure");
    assertThat(failureOf(f3)).isNull();
    assertThat(log(docs, 1)).containsExactly("first", "f1", "f3");
    int before = locks.acquired.get();
    assertThat(second.update(1, d -> replaced(d, "after")).written()).isTrue();
    assertThat(locks.acquired.get()).isEqualTo(before + 1);
  }

  /**
   * A nested update from inside a hold through another updater with group commit does not queue
   * behind that updater's leader (which could wait for this thread): it waits at the lock, alone,
   * and runs once the lock is free.
   */
  @Test
  void aNestedUpdateThroughAnotherUpdaterWaitsAtTheLockNotInItsQueue() throws Exception {
    insert(docs, 1);
    insert(others, 2);
    LockedTesting.ScriptedLocks locks = countingLocks();
    LockedUpdater outer = updater(docs, locks);
    LockedUpdater inner = LockedUpdater.builder(others, locks)
        .lockWait(Duration.ofSeconds(30)).build();
    LockedTesting.HeldBatch othersLeader = new LockedTesting.HeldBatch(pool,
        m -> inner.update(2, m), () -> inner.waiting(2), c -> replaced(c, "leader"));
    Future<UpdateOutcome> nestedCall = pool.submit(() -> outer.update(1, c -> {
      inner.update(2, d -> replaced(d, "nested"));
      return replaced(c, "outer");
    }));
    waitUntil(() -> locks.local.waiting("others:2") == 1);
    assertThat(inner.waiting(2)).as("queued in the other updater's group commit").isZero();
    othersLeader.release();

    assertThat(failureOf(nestedCall)).isNull();
    assertThat(log(others, 2)).containsExactly("leader", "nested");
    assertThat(log(docs, 1)).containsExactly("outer");
  }

  /**
   * Every exit path of a nested hold through several updaters, on one pool thread: an Error three
   * levels down (A -> B under A's key -> A's other document), a nested lock timeout, a nested
   * interrupt, a nested fence refusal given up, and the same document refused. Afterwards the
   * thread holds nothing: each update takes its own lock (counted), and one whose key another
   * thread holds waits for it and times out instead of running under a stale handle.
   */
  @Test
  void noNestedHoldOutlivesItsUpdateOnAPoolThread() throws Exception {
    insert(docs, 1);
    insert(docs, 2);
    insert(others, 1);
    others.insertOne(new Document("_id", 3).append("n", 0L).append("log", List.of())
        .append("version", 0L).append("_fence", 1_000L)); // claimed by a newer holder
    LockedTesting.ScriptedLocks locks = countingLocks();
    LockedUpdater a = updater(docs, locks);
    LockedUpdater aAgain = updater(docs, locks);
    LockedUpdater b = sharingDocsKeys(others, locks);
    LockedUpdater quick = LockedUpdater.builder(docs, locks)
        .lockWait(Duration.ofMillis(300)).build();

    Throwable error = onOneThread(() -> catchThrowable(() -> a.update(1, c1 -> {
      b.update(1, o1 -> { // another document under the held key "docs:1"
        a.update(2, c2 -> { // its own key
          throw new AssertionError("three levels down");
        });
        return replaced(o1, "never");
      });
      return replaced(c1, "never");
    })));
    assertThat(error).isInstanceOf(AssertionError.class).hasMessage("three levels down");

    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(1);
    Future<?> holder = pool.submit(() -> {
      try (LockHandle h = locks.local.acquire("docs:2", Duration.ofSeconds(5))) {
        holding.countDown();
        LockedTesting.await(done);
      }
      return null;
    });
    LockedTesting.await(holding);
    Throwable timeout = onOneThread(() -> catchThrowable(() -> a.update(1, c1 -> {
      quick.update(2, c2 -> replaced(c2, "never"));
      return replaced(c1, "never");
    })));
    assertThat(timeout).isInstanceOf(LockTimeoutException.class);
    Throwable interrupted = onOneThread(() -> catchThrowable(() -> a.update(1, c1 -> {
      Thread.currentThread().interrupt();
      quick.update(2, c2 -> replaced(c2, "never"));
      return replaced(c1, "never");
    })));
    onOneThread(Thread::interrupted);
    assertThat(interrupted).isInstanceOf(WriteGuardInterruptedException.class);
    done.countDown();
    assertThat(failureOf(holder)).isNull();

    Throwable stale = onOneThread(() -> catchThrowable(() -> a.update(1, c1 -> {
      b.update(3, o3 -> replaced(o3, "never")); // "docs:3": its own lock, refused by the fence
      return replaced(c1, "never");
    })));
    assertThat(stale).isInstanceOf(StaleLockException.class);
    Throwable same = onOneThread(() -> catchThrowable(() -> a.update(1, c1 -> {
      aAgain.update(1L, c -> replaced(c, "never"));
      return replaced(c1, "never");
    })));
    assertThat(same).isInstanceOf(IllegalStateException.class);
    assertThat(log(docs, 1)).isEmpty();
    assertThat(log(docs, 2)).isEmpty();
    assertThat(log(others, 1)).isEmpty();

    int before = locks.acquired.get();
    List<Boolean> written = onOneThread(() -> List.of(
        b.update(1, d -> replaced(d, "b1")).written(),
        aAgain.update(1L, d -> replaced(d, "a1")).written(),
        quick.update(2, d -> replaced(d, "a2")).written(),
        a.update(2L, d -> replaced(d, "a2 again")).written()));
    assertThat(written).containsExactly(true, true, true, true);
    assertThat(locks.acquired.get()).as("each update its own lock").isEqualTo(before + 4);
    assertThat(log(docs, 1)).containsExactly("a1");
    assertThat(log(docs, 2)).containsExactly("a2", "a2 again");
    assertThat(log(others, 1)).containsExactly("b1");

    // A stale hold of "docs:1" would let b run under it; it must wait for the holder instead.
    LockedUpdater bQuick = LockedUpdater.builder(others, locks).lockPrefix("docs:")
        .lockWait(Duration.ofMillis(300)).build();
    CountDownLatch holding1 = new CountDownLatch(1);
    CountDownLatch done1 = new CountDownLatch(1);
    Future<?> holder1 = pool.submit(() -> {
      try (LockHandle h = locks.local.acquire("docs:1", Duration.ofSeconds(5))) {
        holding1.countDown();
        LockedTesting.await(done1);
      }
      return null;
    });
    LockedTesting.await(holding1);
    Throwable waited = onOneThread(() -> catchThrowable(() ->
        bQuick.update(1, d -> replaced(d, "never"))));
    done1.countDown();
    assertThat(failureOf(holder1)).isNull();
    assertThat(waited).isInstanceOf(LockTimeoutException.class);
    assertThat(log(others, 1)).containsExactly("b1");
  }

  /**
   * A lock lent to another updater and lost meanwhile: a newer holder of "docs:1" claimed the
   * other collection's document 1 (its fence is past the outer's token). The nested update is
   * refused by the fence and writes nothing, takes no lock of its own and is not tried again
   * (it was tried {@value LockedUpdater#MAX_FENCED_REJECTIONS} times, each a claim refused);
   * the outer, which caught it, still writes its own document under its token.
   */
  @Test
  void aLostLockLentToAnotherUpdaterFencesItsNestedWrite() throws Exception {
    insert(docs, 1);
    others.insertOne(new Document("_id", 1).append("n", 0L).append("log", List.of())
        .append("version", 0L).append("_fence", 2L)); // the next holder's token
    LockedTesting.ScriptedLocks locks = countingLocks(); // the outer gets token 1
    LockedUpdater outer = updater(docs, locks);
    List<String> innerEvents = new CopyOnWriteArrayList<>();
    LockedUpdater inner = LockedUpdater.builder(others, locks).lockWait(LOCK_WAIT)
        .lockPrefix("docs:").listener(new WriteGuardListener() {
          @Override
          public void onAttempt(OperationScope scope, Object key,
              int attempt) {
            innerEvents.add("attempt");
          }

          @Override
          public void onRetry(OperationScope scope, Object key,
              int attempt, Duration backoff) {
            innerEvents.add("retry");
          }

          @Override
          public void onFailure(OperationScope scope, Object key,
              Throwable error) {
            innerEvents.add(error instanceof StaleLockException ? "failure:stale" : "failure");
          }
        }).build();
    List<Throwable> nested = new ArrayList<>();
    UpdateOutcome written = onOneThread(() -> outer.update(1, c -> {
      nested.add(catchThrowable(() -> inner.update(1, d -> replaced(d, "stale"))));
      return replaced(c, "outer");
    }));

    assertThat(nested).singleElement().isInstanceOf(StaleLockException.class);
    // Not tried again: under the lock its thread holds, each try would meet the same fence.
    assertThat(innerEvents).containsExactly("attempt", "failure:stale");
    assertThat(log(others, 1)).isEmpty();
    assertThat(fence(others, 1)).isEqualTo(2L);
    assertThat(locks.acquired.get()).as("the outer's lock only").isEqualTo(1);
    assertThat(written.written()).isTrue();
    assertThat(log(docs, 1)).containsExactly("outer");
    assertThat(fence(docs, 1)).isEqualTo(1L);
  }

  /**
   * Ids 7, 7.0 and "7" across collections and codec registries, all nested in one update of
   * docs' 7 on one lock service: the same document is refused whatever the updater (another
   * registry object); "7" of docs (another document, same key) and 7 of others keyed "docs:" run
   * under the held lock; 7 of others keyed "others:" takes its own. (The same document under
   * another lock service: LockedUpdaterAcrossInstancesTest.)
   */
  @Test
  void idsSevenAcrossCollectionsAndRegistries() throws Exception {
    insert(docs, 7);
    insert(docs, "7");
    insert(others, 7);
    LockedTesting.ScriptedLocks locks = countingLocks();
    LockedUpdater outer = updater(docs, locks);
    LockedUpdater otherRegistry = updater(docs.withCodecRegistry(CodecRegistries.fromRegistries(
        MongoClientSettings.getDefaultCodecRegistry())), locks);
    LockedUpdater sameKeyHere = updater(docs, locks);
    LockedUpdater sameKeyThere = sharingDocsKeys(others, locks);
    List<Object> nested = new ArrayList<>();
    onOneThread(() -> outer.update(7, c -> {
      nested.add(catchThrowable(() -> otherRegistry.update(7.0, d -> replaced(d, "never"))));
      nested.add(locks.acquired.get());
      nested.add(catchThrowable(() -> sameKeyHere.update("7", d -> replaced(d, "s7"))));
      nested.add(catchThrowable(() -> sameKeyThere.update(7L, d -> replaced(d, "o7")))
          == null ? "ran" : "failed");
      nested.add(locks.acquired.get());
      return replaced(c, "outer");
    }));

    assertThat(nested.get(0)).isInstanceOf(IllegalStateException.class);
    assertThat(nested.subList(1, 5)).containsExactly(1, null, "ran", 1);
    assertThat(log(docs, 7)).containsExactly("outer");
    assertThat(log(docs, "7")).containsExactly("s7");
    assertThat(log(others, 7)).containsExactly("o7");
    LockedUpdater ownKey = updater(others, locks); // "others:7"
    List<Object> alone = new ArrayList<>();
    onOneThread(() -> outer.update(7, c -> {
      alone.add(catchThrowable(() -> ownKey.update(7, d -> replaced(d, "own"))));
      return replaced(c, "outer2");
    }));
    assertThat(alone).containsExactly((Object) null);
    assertThat(locks.acquired.get()).isEqualTo(3);
    assertThat(log(others, 7)).containsExactly("o7", "own");
  }

  /**
   * The adaptive updater's locked route is a LockedUpdater too: its document updated again,
   * nested, through a plain LockedUpdater on the same lock service (and the other way round) is
   * refused at once, not after the 30 s lock wait for the thread's own lock.
   */
  @Test
  void theAdaptiveLockedRouteAndAPlainLockedUpdaterKnowEachOthersHolds() throws Exception {
    docs.insertOne(new Document("_id", "d").append("version", 0L).append("n", 0L)
        .append("log", List.of()));
    LocalLockService locks = LocalLockService.create();
    VersionedUpdater versioned = VersionedUpdater.builder(docs).build();
    FakeTime routerTime = new FakeTime(); // never advances: a hot key stays locked
    AdaptiveUpdater adaptive = AdaptiveUpdater.builder(versioned, locks)
        .policy(AdaptivePolicy.builder().minAttempts(1).threshold(0.0).build())
        .lockWait(Duration.ofSeconds(30))
        .ticker(routerTime.ticker())
        .build();
    AtomicBoolean competed = new AtomicBoolean();
    adaptive.update("d", current -> {
      if (competed.compareAndSet(false, true)) {
        docs.updateOne(Filters.eq("_id", "d"), Updates.inc("version", 1L));
      }
      return Mutation.update(Updates.push("log", "hot"));
    });
    assertThat(adaptive.routeOf("d")).isEqualTo(Route.LOCKED);
    LockedUpdater plain = LockedUpdater.builder(docs, locks).lockWait(Duration.ofSeconds(30))
        .build();

    List<Throwable> nested = new ArrayList<>();
    onOneThread(() -> adaptive.update("d", c -> {
      nested.add(catchThrowable(() -> plain.update("d", d -> replaced(d, "never"))));
      return Mutation.update(Updates.push("log", "adaptive"));
    }));
    onOneThread(() -> plain.update("d", c -> {
      nested.add(catchThrowable(() -> adaptive.update("d",
          d -> Mutation.update(Updates.push("log", "never")))));
      return Mutation.update(Updates.push("log", "plain"));
    }));

    assertThat(nested).hasSize(2)
        .allSatisfy(e -> assertThat(e).isInstanceOf(IllegalStateException.class));
    assertThat(log(docs, "d")).containsExactly("hot", "adaptive", "plain");
  }
}
