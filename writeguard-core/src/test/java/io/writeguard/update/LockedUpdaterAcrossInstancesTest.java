package io.writeguard.update;

import static io.writeguard.update.LockedTesting.replaced;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockService;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.lock.StaleLockException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A mutator that updates through a second {@link LockedUpdater} on the same lock service is
 * nested just as one that updates through its own: the same document is refused at once (it
 * used to wait for the lock its own thread held until the lock wait ran out, then fail with a
 * lock timeout), and another document under a lock key the thread already holds runs under that
 * lock. Each update runs on one thread; the lock wait is long enough that a wait for the thread's
 * own lock ends in a {@code LockTimeoutException}, which the assertions tell apart.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockedUpdaterAcrossInstancesTest extends NestedUpdatesFixture {
  LockedUpdaterAcrossInstancesTest() {
    super("LockedAcross");
  }

  private LockService locks(String kind) {
    return closed(kind.equals("local") ? LocalLockService.create()
        : MongoLeaseLockService.builder(db, "locks").build());
  }

  @ParameterizedTest
  @ValueSource(strings = {"local", "mongo"})
  void theSameDocumentThroughAnotherUpdaterIsRefusedAtOnce(String kind) throws Exception {
    insert(docs, 1);
    LockService locks = locks(kind);
    LockedUpdater outer = updater(docs, locks);
    LockedUpdater inner = updater(docs, locks);
    List<Throwable> nested = new ArrayList<>();
    UpdateOutcome written = onOneThread(() -> outer.update(1, c -> {
      nested.add(catchThrowable(() -> inner.update(1L, d -> replaced(d, "inner"))));
      return replaced(c, "outer");
    }));

    assertThat(nested).singleElement().isInstanceOf(IllegalStateException.class)
        .satisfies(e -> assertThat(e.getMessage()).contains("_id=1").contains("mutators must"));
    assertThat(written.written()).isTrue();
    assertThat(log(docs, 1)).containsExactly("outer");
  }

  /**
   * Under two lock services the same document is two locks: the nested update is not known to
   * be nested and takes its own. The two tokens are not comparable, so one of the two claims is
   * refused by the fence (which one depends on the services' counters), and the outer update
   * ends in a {@link StaleLockException}, its own or the nested one's; nothing hangs, and the
   * document holds exactly the writes that were acknowledged.
   */
  @Test
  void theSameDocumentUnderAnotherLockServiceLosesNoAcknowledgedWrite() throws Exception {
    insert(docs, 1);
    LockedUpdater outer = updater(docs, locks("local"));
    LockedUpdater inner = updater(docs, locks("mongo"));
    List<String> acknowledged = new ArrayList<>();
    Throwable outerFailure = onOneThread(() -> catchThrowable(() -> {
      if (outer.update(1, c -> {
        if (inner.update(1, d -> replaced(d, "inner")).written()) {
          acknowledged.add("inner");
        }
        return replaced(c, "outer");
      }).written()) {
        acknowledged.add("outer");
      }
    }));

    assertThat(outerFailure).isInstanceOf(StaleLockException.class);
    assertThat(log(docs, 1)).isEqualTo(acknowledged);
  }

  @ParameterizedTest
  @ValueSource(strings = {"local", "mongo"})
  void anotherDocumentUnderAHeldLockKeyRunsUnderThatLock(String kind) throws Exception {
    insert(docs, 1);
    insert(others, 1);
    LockService locks = locks(kind);
    LockedUpdater outer = updater(docs, locks);
    // Another collection, keyed as "docs:<id>" too: its document 1 takes the lock held above.
    LockedUpdater inner = LockedUpdater.builder(others, locks).lockWait(LOCK_WAIT)
        .lockPrefix("docs:").build();
    bothWriteWhenNested(outer, inner);
  }

  @ParameterizedTest
  @ValueSource(strings = {"local", "mongo"})
  void theSameIdInAnotherCollectionIsAnotherDocument(String kind) throws Exception {
    insert(docs, 1);
    insert(others, 1);
    LockService locks = locks(kind);
    LockedUpdater outer = updater(docs, locks);
    LockedUpdater inner = updater(others, locks); // keyed "others:1": its own lock
    bothWriteWhenNested(outer, inner);
  }

  /** {@code inner} updates others' 1 inside {@code outer}'s update of docs' 1: both write. */
  private void bothWriteWhenNested(LockedUpdater outer, LockedUpdater inner) throws Exception {
    List<Throwable> nested = new ArrayList<>();
    onOneThread(() -> outer.update(1, c -> {
      nested.add(catchThrowable(() -> inner.update(1, d -> replaced(d, "inner"))));
      return replaced(c, "outer");
    }));

    assertThat(nested).containsExactly((Throwable) null);
    assertThat(log(others, 1)).containsExactly("inner");
    assertThat(log(docs, 1)).containsExactly("outer");
  }

  @Test
  void afterANestedRefusalTheThreadHoldsNothing() throws Exception {
    insert(docs, 1);
    LockService locks = locks("local");
    LockedUpdater outer = updater(docs, locks);
    LockedUpdater inner = updater(docs, locks);
    Function<LockedUpdater, Throwable> nestedOnce = u -> catchThrowable(() -> outer.update(1,
        c -> {
          u.update(1, d -> replaced(d, "never"));
          return replaced(c, "never");
        }));
    assertThat(onOneThread(() -> nestedOnce.apply(inner)))
        .isInstanceOf(IllegalStateException.class);
    // Nothing of the library stays on the pooled thread (no record to pin its class loader).
    assertThat(onOneThread(LockedUpdater::threadRecordsNothing)).isTrue();
    // The same thread, then another: both update the document through either updater.
    assertThat(onOneThread(() -> inner.update(1, d -> replaced(d, "a")).written())).isTrue();
    assertThat(onOneThread(() -> outer.update(1, d -> replaced(d, "b")).written())).isTrue();
    assertThat(log(docs, 1)).containsExactly("a", "b");
    assertThat(onOneThread(LockedUpdater::threadRecordsNothing)).isTrue();
  }
}
