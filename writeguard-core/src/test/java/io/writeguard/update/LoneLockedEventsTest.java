package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.update.LockedTesting.holderWith;
import static io.writeguard.update.LockedTesting.replaced;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedTesting.ScriptedLocks;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A lone caller with group commit on runs its update straight on the update loop under the
 * lock, no longer through the batch engine. It must behave as a batch of one did: the events
 * of the same update with group commit off (one lock hold, the update loop alone), with one
 * {@code onBatch(1)} before each hold's loop and nothing else added, exactly one terminal event,
 * and the same outcome, exception and stored document. Each scenario runs twice on equal
 * documents, group commit off (the oracle) and on.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LoneLockedEventsTest {
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("LoneLockedEvents").getCollection("docs");

  /** What an update did: its events in order, its outcome or exception, the stored document. */
  private record Run(List<String> events, String result, Document stored) {}

  /** One scenario: the mutator of an update of {@code id}, made afresh for each run. */
  private interface Scenario {
    Mutator mutator(String id, LockedUpdater updater);
  }

  /** {@link RecordingListener}'s events, with each {@code onBatch} and fence refusal among them. */
  private static WriteGuardListener recording(List<String> events, RecordingListener updates) {
    return WriteGuardListener.composite(updates, new WriteGuardListener() {
      @Override
      public void onBatch(OperationScope scope, Object key, int size) {
        events.add("batch " + size);
      }

      @Override
      public void onFencedRejection(OperationScope scope, Object key, long token) {
        events.add("fenced");
      }
    });
  }

  private void insert(String id) {
    VersionedInsert.insertOne(real, VersionPolicy.defaults(),
        new Document("_id", id).append("n", 0L).append("log", List.of()));
  }

  private Run run(String id, boolean groupCommit, boolean present, LockService locks,
      Scenario scenario) {
    if (present) {
      insert(id);
    }
    RecordingListener recorder = new RecordingListener();
    LockedUpdater updater = LockedUpdater.builder(real, locks)
        .groupCommit(groupCommit)
        .listener(recording(recorder.events, recorder))
        .lockWait(Duration.ofSeconds(60))
        .retryPolicy(RetryPolicy.builder().maxAttempts(3).deadline(Duration.ofSeconds(60))
            .backoff(Duration.ofMillis(1), Duration.ofMillis(2)).build())
        .build();
    String result;
    try {
      UpdateOutcome outcome = updater.update(id, scenario.mutator(id, updater));
      result = "attempts=" + outcome.attempts() + " fencedRejections="
          + outcome.fencedRejections() + " doc="
          + outcome.document().map(LoneLockedEventsTest::withoutId).orElse(null);
    } catch (RuntimeException e) {
      result = e.getClass().getSimpleName();
    }
    assertThat(Thread.interrupted()).as("no interrupt left behind").isFalse();
    return new Run(recorder.events, result, withoutId(real.find(eq("_id", id)).first()));
  }

  /** The document but its _id and its token, which differ from run to run. */
  private static Document withoutId(Document doc) {
    if (doc == null) {
      return null;
    }
    Document copy = new Document(doc);
    copy.remove("_id");
    if (copy.containsKey("_fence")) {
      copy.put("_fence", "a token"); // each run takes its own tokens
    }
    return copy;
  }

  /** Group commit on, a lone caller, against the same update with group commit off. */
  private void sameAsABatchOfOne(String name, boolean present, Scenario scenario) {
    sameAsABatchOfOne(name, present, LocalLockService::create, scenario);
  }

  private void sameAsABatchOfOne(String name, boolean present,
      java.util.function.Supplier<LockService> locks, Scenario scenario) {
    Run alone = run(name + "-off", false, present, locks.get(), scenario);
    Run lone = run(name + "-on", true, present, locks.get(), scenario);

    assertThat(lone.result()).as(name).isEqualTo(alone.result());
    assertThat(lone.stored()).as(name).isEqualTo(alone.stored());
    List<String> withoutBatches = new ArrayList<>(lone.events());
    withoutBatches.removeIf(e -> e.startsWith("batch "));
    assertThat(withoutBatches).as(name + ": %s", lone.events()).isEqualTo(alone.events());
    // onBatch(1) opens each hold's loop: first of all, and once after each fenced rejection.
    long holds = lone.events().stream().filter(e -> e.startsWith("batch ")).count();
    assertThat(lone.events().stream().filter(e -> e.startsWith("batch ")))
        .as(name).allMatch("batch 1"::equals);
    if (holds > 0) {
      assertThat(lone.events().get(0)).as(name + ": %s", lone.events()).isEqualTo("batch 1");
    }
    // Each hold's loop starts at attempt 1 (a nested update of another document runs a loop of
    // its own under no batch of its own).
    long nestedLoops = name.equals("nested-other") ? 1 : 0;
    assertThat(holds).as(name + ": %s", lone.events()).isEqualTo(
        alone.events().stream().filter("attempt 1"::equals).count() - nestedLoops);
    // One terminal event per update: the nested scenarios make two updates.
    long updates = name.startsWith("nested") ? 2 : 1;
    assertThat(terminals(lone.events())).as(name + ": %s", lone.events()).isEqualTo(updates);
    assertThat(terminals(alone.events())).as(name + ": %s", alone.events()).isEqualTo(updates);
  }

  private static long terminals(List<String> events) {
    return events.stream().filter(e -> e.startsWith("success") || e.startsWith("exhausted")
        || e.startsWith("failure")).count();
  }

  @Test
  void aLoneCallerHearsWhatABatchOfOneHeard() {
    sameAsABatchOfOne("replace", true, (id, u) -> current -> replaced(current, "x"));
    sameAsABatchOfOne("operators", true, (id, u) -> current -> Mutation.update(
        Updates.combine(Updates.inc("n", 1L), Updates.push("log", "y"))));
    sameAsABatchOfOne("none", true, (id, u) -> current -> Mutation.none());
    sameAsABatchOfOne("null", true, (id, u) -> current -> null);
    sameAsABatchOfOne("throws", true, (id, u) -> current -> {
      throw new IllegalStateException("no");
    });
    sameAsABatchOfOne("another-id", true, (id, u) -> current -> {
      current.put("_id", "elsewhere");
      return Mutation.replace(current);
    });
    sameAsABatchOfOne("writes-the-version", true, (id, u) -> current ->
        Mutation.update(Updates.set("version", 99L)));
    sameAsABatchOfOne("writes-the-fence", true, (id, u) -> current ->
        Mutation.update(Updates.set("_fence", 99L)));
    sameAsABatchOfOne("missing", false, (id, u) -> current -> replaced(current, "x"));
  }

  @Test
  void aWriterThatBypassesTheLockIsAConflictNotErasedAsInABatchOfOne() {
    VersionedUpdater bypass = VersionedUpdater.builder(real).groupCommit(false).build();
    sameAsABatchOfOne("bypassed-once", true, (id, u) -> {
      AtomicBoolean competed = new AtomicBoolean();
      return current -> {
        if (competed.compareAndSet(false, true)) {
          bypass.update(id, doc -> replaced(doc, "bypass"));
        }
        return replaced(current, "ours");
      };
    });
    sameAsABatchOfOne("bypassed-always", true, (id, u) -> current -> {
      bypass.update(id, doc -> replaced(doc, "bypass"));
      return replaced(current, "ours");
    });
  }

  @Test
  void aNewerHolderThatClaimsInsideTheMutatorIsRefusedAndRetriedAsInABatchOfOne() {
    AtomicLong tokens = new AtomicLong();
    FencedWriter newer = FencedWriter.of(real);
    sameAsABatchOfOne("claimed-once", true, () -> new ScriptedLocks(
        () -> tokens.addAndGet(10)), (id, u) -> {
          AtomicBoolean claimed = new AtomicBoolean();
          return current -> {
            if (claimed.compareAndSet(false, true)) {
              // a holder with a newer token than ours (ours + 5), older than our next one
              newer.claim(holderWith(tokens.get() + 5), id);
            }
            return replaced(current, "ours");
          };
        });
    sameAsABatchOfOne("claimed-always", true, () -> new ScriptedLocks(
        () -> tokens.addAndGet(10)), (id, u) -> current -> {
          newer.claim(holderWith(tokens.get() + 5), id);
          return replaced(current, "ours");
        });
  }

  @Test
  void aNestedUpdateFromTheMutatorIsAnsweredAsInABatchOfOne() {
    sameAsABatchOfOne("nested-same", true, (id, u) -> current -> {
      u.update(id, doc -> replaced(doc, "nested"));
      return replaced(current, "outer");
    });
    sameAsABatchOfOne("nested-other", true, (id, u) -> {
      insert(id + "-other");
      return current -> {
        u.update(id + "-other", doc -> replaced(doc, "nested"));
        return replaced(current, "outer");
      };
    });
  }

  /**
   * A mutator that interrupts its own thread: whatever the update then does, the lease lock is
   * released (the release set the interrupt aside) and the flag is the caller's again, with
   * group commit on exactly as off.
   */
  @Test
  void aLoneCallerThatInterruptsItselfStillReleasesTheLeaseLock() {
    List<String> results = new ArrayList<>();
    for (boolean groupCommit : new boolean[] {false, true}) {
      MongoLeaseLockService locks = MongoLeaseLockService.builder(TestMongo.client()
          .getDatabase(real.getNamespace().getDatabaseName()), "locks").build();
      String id = "interrupted-" + groupCommit;
      insert(id);
      RecordingListener recorder = new RecordingListener();
      LockedUpdater updater = LockedUpdater.builder(real, locks).groupCommit(groupCommit)
          .listener(recorder).lockWait(Duration.ofSeconds(60)).build();
      String result;
      try {
        updater.update(id, current -> {
          Thread.currentThread().interrupt();
          return replaced(current, "x");
        });
        result = "applied";
      } catch (RuntimeException e) {
        result = e.getClass().getSimpleName();
      }
      assertThat(Thread.interrupted()).as("the caller's interrupt, kept").isTrue();
      results.add(result + " " + recorder.events + " "
          + withoutId(real.find(eq("_id", id)).first()).getList("log", String.class));
      Optional<LockHandle> again = locks.tryAcquire("docs:" + id);
      assertThat(again).as("released, group commit %s", groupCommit).isPresent();
      again.get().close();
      locks.close();
    }
    assertThat(results.get(1)).isEqualTo(results.get(0));
  }

  @Test
  void aLockNotHadInTimeEndsAsInABatchOfOne() {
    for (boolean groupCommit : new boolean[] {false, true}) {
      LocalLockService locks = LocalLockService.create();
      String id = "timeout-" + groupCommit;
      insert(id);
      RecordingListener recorder = new RecordingListener();
      LockedUpdater updater = LockedUpdater.builder(real, locks).groupCommit(groupCommit)
          .listener(recording(recorder.events, recorder)).lockWait(Duration.ofMillis(1)).build();
      String result;
      try (LockHandle held = locks.acquire("docs:" + id, Duration.ofSeconds(60))) {
        try {
          updater.update(id, current -> replaced(current, "x"));
          result = "applied";
        } catch (RuntimeException e) {
          result = e.getClass().getSimpleName();
        }
      }
      assertThat(result).isEqualTo("LockTimeoutException");
      assertThat(recorder.events).as("group commit %s", groupCommit)
          .containsExactly("failure LockTimeoutException");
    }
  }
}
