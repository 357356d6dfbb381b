package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.testing.Sneaky.checked;
import static io.writeguard.testing.Sneaky.sneakyThrow;
import static io.writeguard.update.LockedTesting.failureWithin;
import static io.writeguard.update.LockedTesting.replaced;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedTesting.HeldBatch;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 34: a mutator may throw a checked exception the compiler does not see (Kotlin, Lombok
 * {@code @SneakyThrows}). In a group-commit batch it fails its own caller, with that very
 * exception, and no one else: every other caller of the batch gets its own outcome, and a
 * locked batch releases its lock. Every answer is awaited with a bound (5 s).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GroupCommitCheckedExceptionTest {
  private static final Duration BOUND = Duration.ofSeconds(5);
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("GroupCommitChecked").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private void insert(String id) {
    real.insertOne(new Document("_id", id).append("n", 0L).append("log", List.of())
        .append("version", 0L));
  }

  private List<String> log(Object id) {
    return real.find(eq("_id", id)).first().getList("log", String.class);
  }

  @Test
  void aBatchLeaderWhoseMutatorThrowsACheckedExceptionGetsItAndItsFollowerWrites()
      throws Exception {
    insert("lead");
    VersionedUpdater updater = VersionedUpdater.builder(real).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("lead", m),
        () -> updater.waiting("lead"), c -> replaced(c, "first"));
    IOException thrown = checked("b's mutator");
    Future<UpdateOutcome> b = held.queue(current -> sneakyThrow(thrown)); // leads [b, c]
    Future<UpdateOutcome> c = held.queue(current -> replaced(current, "c"));
    held.release();

    assertThat(failureWithin(b, BOUND)).isSameAs(thrown);
    assertThat(failureWithin(c, BOUND)).as("c's update is fine").isNull();
    assertThat(log("lead")).containsExactly("first", "c");
  }

  @Test
  void aFollowerWhoseMutatorThrowsACheckedExceptionGetsItAndTheLeaderWrites()
      throws Exception {
    insert("follow");
    VersionedUpdater updater = VersionedUpdater.builder(real).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("follow", m),
        () -> updater.waiting("follow"), c -> replaced(c, "first"));
    IOException thrown = checked("c's mutator");
    Future<UpdateOutcome> b = held.queue(current -> replaced(current, "b"));
    Future<UpdateOutcome> c = held.queue(current -> sneakyThrow(thrown));
    held.release();

    assertThat(failureWithin(b, BOUND)).isNull();
    assertThat(failureWithin(c, BOUND)).isSameAs(thrown);
    assertThat(log("follow")).containsExactly("first", "b");
  }

  @Test
  void aLockedBatchLeaderWhoseMutatorThrowsACheckedExceptionReleasesTheLock() throws Exception {
    insert("locked");
    LocalLockService locks = LocalLockService.create();
    LockedUpdater updater = LockedUpdater.builder(real, locks)
        .lockWait(Duration.ofSeconds(30)).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("locked", m),
        () -> updater.waiting("locked"), c -> replaced(c, "first"));
    IOException thrown = checked("b's mutator");
    Future<UpdateOutcome> b = held.queue(current -> sneakyThrow(thrown));
    Future<UpdateOutcome> c = held.queue(current -> replaced(current, "c"));
    held.release();

    assertThat(failureWithin(b, BOUND)).isSameAs(thrown);
    assertThat(failureWithin(c, BOUND)).isNull();
    assertThat(log("locked")).containsExactly("first", "c");
    try (LockHandle free = locks.acquire("docs:locked", Duration.ofMillis(500))) {
      assertThat(free.key()).isEqualTo("docs:locked");
    }
  }

  @Test
  void aLoneUpdateWhoseMutatorThrowsACheckedExceptionGetsIt() throws Exception {
    insert("alone");
    VersionedUpdater updater = VersionedUpdater.builder(real).build();
    IOException thrown = checked("the mutator");
    Future<UpdateOutcome> a = pool.submit(() -> updater.update("alone", c -> sneakyThrow(thrown)));

    assertThat(failureWithin(a, BOUND)).isSameAs(thrown);
    assertThat(log("alone")).isEmpty();
  }
}
