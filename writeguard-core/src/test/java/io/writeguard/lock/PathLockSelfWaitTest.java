package io.writeguard.lock;

import static com.mongodb.client.model.Updates.inc;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.writeguard.path.FieldPath;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedUpdater;
import io.writeguard.update.Mutation;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * A thread that asks {@link PathLockService} for paths conflicting with paths it holds itself
 * would wait for itself: it is refused at once, instead of waiting out its whole lock wait.
 * The waits here are a minute long; each call must be answered within seconds.
 */
class PathLockSelfWaitTest {
  private static final Duration LONG_WAIT = Duration.ofMinutes(1);
  private final PathLockService locks = PathLockService.create();

  private static Throwable failureWithin(CompletableFuture<?> call) throws Exception {
    try {
      call.get(10, TimeUnit.SECONDS);
      throw new AssertionError("the call succeeded");
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  @Test
  void theWholeDocumentUnderAPathThisThreadHoldsIsRefusedAtOnce() throws Exception {
    Throwable failure = failureWithin(CompletableFuture.runAsync(() -> {
      try (PathLockHandle held = locks.acquire("doc", FieldPath.parse("a.b"), LONG_WAIT)) {
        locks.acquire("doc", LONG_WAIT).close();
      }
    }));
    assertThat(failure).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'doc'").hasMessageContaining("a.b")
        .hasMessageContaining("this thread holds");
    assertThat(locks.size()).isZero();
  }

  @Test
  void aPathPrefixOfAHeldPathIsRefusedAtOnceAndADisjointOneIsGranted() throws Exception {
    Throwable failure = failureWithin(CompletableFuture.runAsync(() -> {
      try (PathLockHandle held = locks.acquire("doc", FieldPath.parse("infos.k.s"), LONG_WAIT)) {
        locks.acquire("doc", FieldPath.parse("infos.x"), LONG_WAIT).close(); // no conflict
        locks.acquire("doc", List.of(FieldPath.parse("infos")), LONG_WAIT).close();
      }
    }));
    assertThat(failure).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("infos.k.s");
  }

  /** Another thread's conflicting hold is still waited for, as before. */
  @Test
  void anotherThreadsHoldIsStillWaitedFor() throws Exception {
    PathLockHandle held = locks.acquire("doc", FieldPath.parse("a"), LONG_WAIT);
    CompletableFuture<PathLockHandle> waiter =
        CompletableFuture.supplyAsync(() -> locks.acquire("doc", LONG_WAIT));
    while (locks.waiting("doc") == 0) {
      Thread.onSpinWait();
    }
    assertThat(waiter).isNotDone();
    held.close();
    waiter.get(10, TimeUnit.SECONDS).close();
  }

  /** The case from the review: a locked update nested under a path lock of its document. */
  @Test
  void aLockedUpdateNestedUnderAPathLockOfItsDocumentIsRefusedAtOnce() throws Exception {
    MongoCollection<Document> accounts =
        TestMongo.freshDatabase("PathSelfWait").getCollection("accounts");
    accounts.insertOne(new Document("_id", "a").append("balance", 0L).append("version", 0L));
    LockedUpdater updater = LockedUpdater.builder(accounts, locks).lockWait(LONG_WAIT).build();
    Throwable failure = failureWithin(CompletableFuture.runAsync(() -> {
      try (PathLockHandle held =
          locks.acquire("accounts:a", FieldPath.parse("balance"), LONG_WAIT)) {
        updater.update("a", current -> Mutation.update(inc("balance", 1)));
      }
    }));
    assertThat(failure).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("this thread holds");
    assertThat(accounts.find().first().getLong("balance")).isZero();
  }
}
