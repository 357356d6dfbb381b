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
import java.util.function.Function;
import java.util.function.IntSupplier;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Review of issue 34: one held batch whose leader and several followers throw at once, each
 * something else (a checked exception, an Error, a sneaky InterruptedException, a real
 * StackOverflowError), beside callers whose updates are fine. Each caller gets exactly what its
 * own mutator threw, the fine ones write once each, a locked batch's lock is free afterwards.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GroupCommitAnyThrowableReviewTest {
  private static final Duration BOUND = Duration.ofSeconds(5);
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("GroupCommitAnyThrowable").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private void insert(String id) {
    real.insertOne(new Document("_id", id).append("n", 0L).append("log", List.of())
        .append("version", 0L));
  }

  private Document doc(Object id) {
    return real.find(eq("_id", id)).first();
  }

  private static int deep(int n) {
    return n == Integer.MAX_VALUE ? n : deep(n + 1) + 1; // recurses until the stack ends
  }

  /** Leader and followers fail differently at once; the fine callers' writes land once. */
  private void everyCallerGetsItsOwnOutcome(String id, Function<Mutator, UpdateOutcome> update,
      IntSupplier waiting) throws Exception {
    HeldBatch held = new HeldBatch(pool, update, waiting, c -> replaced(c, "first"));
    IOException leaderChecked = checked("the leader's mutator");
    OutOfMemoryError error = new OutOfMemoryError("thrown by a follower's mutator (test)");
    InterruptedException interrupted = new InterruptedException("sneaky, from a mutator");
    IOException lastChecked = checked("the last follower's mutator");
    Future<UpdateOutcome> leader = held.queue(current -> sneakyThrow(leaderChecked));
    Future<UpdateOutcome> fine1 = held.queue(current -> replaced(current, "fine1"));
    Future<UpdateOutcome> oom = held.queue(current -> {
      throw error;
    });
    Future<UpdateOutcome> overflow = held.queue(current -> {
      deep(0);
      return replaced(current, "never");
    });
    Future<UpdateOutcome> sneakyInterrupt = held.queue(current -> sneakyThrow(interrupted));
    Future<UpdateOutcome> fine2 = held.queue(current -> replaced(current, "fine2"));
    Future<UpdateOutcome> last = held.queue(current -> sneakyThrow(lastChecked));
    held.release();

    assertThat(failureWithin(leader, BOUND)).isSameAs(leaderChecked);
    assertThat(failureWithin(fine1, BOUND)).isNull();
    assertThat(failureWithin(oom, BOUND)).isSameAs(error);
    assertThat(failureWithin(overflow, BOUND)).isInstanceOf(StackOverflowError.class);
    assertThat(failureWithin(sneakyInterrupt, BOUND)).isSameAs(interrupted);
    assertThat(failureWithin(fine2, BOUND)).isNull();
    assertThat(failureWithin(last, BOUND)).isSameAs(lastChecked);
    Document after = doc(id);
    assertThat(after.getList("log", String.class)).containsExactly("first", "fine1", "fine2");
    assertThat(after.getLong("n")).isEqualTo(3L);
  }

  @Test
  void aVersionedBatchWhoseLeaderAndFollowersThrowAnythingAnswersEachCallerItsOwnOutcome()
      throws Exception {
    insert("v");
    VersionedUpdater updater = VersionedUpdater.builder(real).build();
    everyCallerGetsItsOwnOutcome("v", m -> updater.update("v", m), () -> updater.waiting("v"));
  }

  @Test
  void aLockedBatchWhoseLeaderAndFollowersThrowAnythingAnswersEachAndFreesTheLock()
      throws Exception {
    insert("l");
    LocalLockService locks = LocalLockService.create();
    LockedUpdater updater = LockedUpdater.builder(real, locks)
        .lockWait(Duration.ofSeconds(30)).build();
    everyCallerGetsItsOwnOutcome("l", m -> updater.update("l", m), () -> updater.waiting("l"));
    try (LockHandle free = locks.acquire("docs:l", Duration.ofMillis(500))) {
      assertThat(free.key()).isEqualTo("docs:l");
    }
    // The thrown-away callers left nothing behind: the next update is a lone, clean one.
    assertThat(updater.update("l", c -> replaced(c, "after"))).isNotNull();
    assertThat(doc("l").getList("log", String.class))
        .containsExactly("first", "fine1", "fine2", "after");
  }
}
