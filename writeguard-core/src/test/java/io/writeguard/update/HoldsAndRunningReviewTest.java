package io.writeguard.update;

import static io.writeguard.update.LockedTesting.replaced;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockService;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Adversarial review of c940272 (a held document keyed under its lock service; the thread's
 * record created lazily and cleared when the outermost hold ends, {@code LockHolds.NONE} seen
 * meanwhile), a4511a8 (per-thread records cleared with {@code set(null)} instead of removed)
 * and, for the batch engine's interrupt handling, the nested-update rule of
 * {@link VersionedUpdater}. Each probe held: they are kept as regression tests. Every wait is
 * bounded; a nested update that waited for its own thread's lock would end in a lock timeout
 * (or, queued, in an exhausted deadline) that the assertions tell apart from the outcome
 * expected.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HoldsAndRunningReviewTest extends NestedUpdatesFixture {
  HoldsAndRunningReviewTest() {
    super("HoldsAndRunningReview");
  }

  private LockService local() {
    return closed(LocalLockService.create());
  }

  /** The sizes of {@code LockHolds.NONE}'s two lists: what every thread that holds nothing sees. */
  private static List<Integer> sharedEmptyRecordSizes() throws Exception {
    Class<?> holds = LockHolds.class;
    Field none = holds.getDeclaredField("NONE");
    none.setAccessible(true);
    Object record = none.get(null);
    List<Integer> sizes = new ArrayList<>();
    for (String name : List.of("documents", "locks")) {
      Field f = holds.getDeclaredField(name);
      f.setAccessible(true);
      sizes.add(((List<?>) f.get(record)).size());
    }
    return sizes;
  }

  /**
   * Inner holds come and go inside an outer one (another service's lock and document, another
   * document under the held key, a refused update of the held document); after each, the
   * outer's record is whole: its document is still refused at once, and a document under its
   * key still runs under its lock instead of waiting for it. Twice on one thread, so the second
   * outer update starts from a record cleared by the first.
   */
  @Test
  void anOuterHoldOutlivesEveryInnerHoldOnItsThread() throws Exception {
    insert(docs, 1);
    insert(docs, 9);
    insert(others, 1);
    LockService s1 = local();
    LockService s2 = local();
    LockedUpdater outer = LockedUpdater.builder(docs, s1).lockWait(LOCK_WAIT).build();
    LockedUpdater sameService = LockedUpdater.builder(docs, s1).lockWait(LOCK_WAIT).build();
    LockedUpdater otherService = LockedUpdater.builder(docs, s2).lockWait(LOCK_WAIT).build();
    LockedUpdater underHeldKey = LockedUpdater.builder(others, s1).lockPrefix("docs:")
        .lockWait(LOCK_WAIT).build();

    for (int round = 0; round < 2; round++) {
      String r = "r" + round;
      List<Object> seen = onOneThread(() -> {
        List<Object> s = new ArrayList<>();
        outer.update(1, c -> {
          s.add(otherService.update(9, d -> replaced(d, "s2 " + r)).written());
          s.add(kind(catchThrowable(() -> sameService.update(1L, d -> replaced(d, "never")))));
          s.add(underHeldKey.update(1, o -> {
            s.add(kind(catchThrowable(() -> sameService.update(1, d -> replaced(d, "never")))));
            return replaced(o, "under key " + r);
          }).written());
          s.add(kind(catchThrowable(() -> sameService.update(1, d -> replaced(d, "never")))));
          s.add(underHeldKey.update(1, o -> replaced(o, "under key again " + r)).written());
          return replaced(c, "outer " + r);
        });
        s.add(LockedUpdater.threadRecordsNothing());
        return s;
      });
      assertThat(seen).as("round %s: inner outcomes, then whether the thread records nothing",
          round).containsExactly(true, "IllegalStateException", "IllegalStateException", true,
          "IllegalStateException", true, true);
    }
    assertThat(log(docs, 1)).containsExactly("outer r0", "outer r1");
    assertThat(log(docs, 9)).containsExactly("s2 r0", "s2 r1");
    assertThat(log(others, 1)).containsExactly("under key r0", "under key again r0",
        "under key r1", "under key again r1");
    assertThat(sharedEmptyRecordSizes()).as("LockHolds.NONE's documents and locks")
        .containsExactly(0, 0);
  }

  private static String kind(Throwable t) {
    return t == null ? "none" : t.getClass().getSimpleName();
  }

  /**
   * A leader runs its followers' mutators on its thread, one of them nesting a refused update of
   * the batch's document and another under the batch's lock key: the follower alone fails its
   * nested call, the lock is lent, and afterwards no thread of the batch keeps a record, and the
   * shared empty record was never written to.
   */
  @Test
  void aBatchWhoseFollowersNestLeavesNoRecordAndNoneUntouched() throws Exception {
    insert(docs, 1);
    insert(others, 1);
    LockService locks = local();
    LockedUpdater updater = LockedUpdater.builder(docs, locks).lockWait(LOCK_WAIT).build();
    LockedUpdater again = LockedUpdater.builder(docs, locks).lockWait(LOCK_WAIT).build();
    LockedUpdater underHeldKey = LockedUpdater.builder(others, locks).lockPrefix("docs:")
        .lockWait(LOCK_WAIT).build();
    List<Boolean> recordsNothing = new CopyOnWriteArrayList<>();
    List<String> nested = new CopyOnWriteArrayList<>();

    LockedTesting.HeldBatch held = new LockedTesting.HeldBatch(pool, m -> {
      UpdateOutcome o = updater.update(1, m);
      recordsNothing.add(LockedUpdater.threadRecordsNothing());
      return o;
    }, () -> updater.waiting(1), c -> replaced(c, "first"));
    Future<UpdateOutcome> f1 = held.queue(c -> {
      nested.add(kind(catchThrowable(() -> again.update(1L, d -> replaced(d, "never")))));
      nested.add(String.valueOf(underHeldKey.update(1, o -> replaced(o, "lent")).written()));
      return replaced(c, "f1");
    });
    Future<UpdateOutcome> f2 = held.queue(c -> replaced(c, "f2"));
    assertThat(held.release().written()).isTrue();
    assertThat(f1.get(60, TimeUnit.SECONDS).written()).isTrue();
    assertThat(f2.get(60, TimeUnit.SECONDS).written()).isTrue();

    assertThat(nested).containsExactly("IllegalStateException", "true");
    assertThat(log(docs, 1)).containsExactly("first", "f1", "f2");
    assertThat(log(others, 1)).containsExactly("lent");
    assertThat(recordsNothing).containsExactly(true, true, true);
    assertThat(sharedEmptyRecordSizes()).as("LockHolds.NONE's documents and locks")
        .containsExactly(0, 0);
  }

  /**
   * Threads that already ran batches and lone updates (their {@code runningHere} entry left
   * null) lead a batch of several whose mutators interrupt the leader: the interrupt is set
   * aside before the round trips (no NullPointerException from a cleared entry), every caller
   * is answered, and only the leader's thread has its interrupt back afterwards.
   */
  @Test
  void anInterruptSetAsideOnThreadsWhoseRunningEntryWasClearedIsRestoredToTheLeaderOnly()
      throws Exception {
    insert(docs, 1);
    VersionedUpdater updater = VersionedUpdater.builder(docs).build();
    ExecutorService fixed = Executors.newFixedThreadPool(3);
    try {
      for (int round = 0; round < 3; round++) {
        String r = "r" + round;
        boolean interrupting = round == 2;
        List<Boolean> interruptedAfter = new CopyOnWriteArrayList<>();
        LockedTesting.HeldBatch held = new LockedTesting.HeldBatch(fixed, m -> {
          UpdateOutcome o = updater.update(1, m);
          interruptedAfter.add(Thread.interrupted());
          return o;
        }, () -> updater.waiting(1), c -> replaced(c, "first " + r));
        List<Future<UpdateOutcome>> queued = new ArrayList<>();
        for (String mark : List.of("a ", "b ")) {
          queued.add(held.queue(c -> {
            if (interrupting) {
              Thread.currentThread().interrupt(); // the leader's thread: this runs in its batch
            }
            return replaced(c, mark + r);
          }));
        }
        assertThat(held.release().written()).isTrue();
        for (Future<UpdateOutcome> f : queued) {
          assertThat(f.get(60, TimeUnit.SECONDS).written()).isTrue();
        }
        // Lone updates on the pool's threads in between: each clears its entry again.
        for (int i = 0; i < 3; i++) {
          assertThat(fixed.submit(() -> updater.update(1, c -> replaced(c, "lone " + r)))
              .get(60, TimeUnit.SECONDS).written()).isTrue();
        }
        assertThat(interruptedAfter).as("round %s: whose interrupt is set after the update",
            round).hasSize(3).filteredOn(b -> b).hasSize(interrupting ? 1 : 0);
      }
      assertThat(log(docs, 1)).startsWith("first r0", "a r0", "b r0").contains("first r2",
          "a r2", "b r2").hasSize(18);
    } finally {
      fixed.shutdownNow();
    }
  }

  /**
   * A {@link VersionedUpdater} update made by a mutator of its own batch runs alone, as before
   * a4511a8: it does not queue behind another caller's update of the nested document, which is
   * held in its mutator until the outer update has returned (queued, the nested update would
   * wait there until its deadline and fail). Twice on one thread, the second after its entry
   * was cleared.
   */
  @Test
  void aNestedVersionedUpdateRunsAloneAgainAfterItsThreadsEntryWasCleared() throws Exception {
    insert(docs, 1);
    insert(docs, 2);
    VersionedUpdater updater = VersionedUpdater.builder(docs).build();
    for (int round = 0; round < 2; round++) {
      String r = "r" + round;
      LockedTesting.HeldBatch held2 = new LockedTesting.HeldBatch(pool,
          m -> updater.update(2, m), () -> updater.waiting(2), c -> replaced(c, "held " + r));
      List<Object> seen = onOneThread(() -> {
        List<Object> s = new ArrayList<>();
        s.add(updater.update(1, c -> {
          s.add(updater.waiting(2));
          s.add(kind(catchThrowable(() -> updater.update(2, d -> replaced(d, "nested " + r)))));
          return replaced(c, "outer " + r);
        }).written());
        return s;
      });
      assertThat(seen).as("round %s: queued on 2, the nested outcome, the outer written", round)
          .containsExactly(0, "none", true);
      assertThat(held2.release().written()).isTrue();
    }
    assertThat(log(docs, 1)).containsExactly("outer r0", "outer r1");
    assertThat(log(docs, 2)).containsExactly("nested r0", "held r0", "nested r1", "held r1");
  }
}
