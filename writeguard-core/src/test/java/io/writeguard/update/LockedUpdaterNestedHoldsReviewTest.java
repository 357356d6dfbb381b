package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.update.LockedTesting.replaced;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.mongodb.client.MongoCollection;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Review of the thread's nested-update record as three lists (2e5442d): nested several levels
 * deep, through the ids {@code 7}, {@code "7"} (another document under the same lock key) and
 * {@code 7L} (the same document), and unwound by an Error and by an interrupt, the record must
 * be empty again on the same thread, and every lock released.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockedUpdaterNestedHoldsReviewTest {
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("LockedNestedHolds").getCollection("docs");
  private final ExecutorService one = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() {
    one.shutdownNow();
  }

  private void insert(Object id) {
    real.insertOne(new Document("_id", id).append("n", 0L).append("log", List.of())
        .append("version", 0L));
  }

  private List<String> log(Object id) {
    return real.find(eq("_id", id)).first().getList("log", String.class);
  }

  @Test
  void aDeepNestingUnwoundByAnErrorLeavesNothingHeldOnTheThread() throws Exception {
    insert(7);
    insert("7");
    insert("x");
    LocalLockService locks = LocalLockService.create();
    LockedUpdater updater = LockedUpdater.builder(real, locks)
        .lockWait(Duration.ofSeconds(2)).build();
    List<Throwable> refused = new ArrayList<>();
    Throwable failure = one.submit(() -> catchThrowable(() -> updater.update(7, c7 -> {
      updater.update("7", cs -> { // another document, the same lock key: runs under it
        updater.update("x", cx -> {
          refused.add(catchThrowable(() -> updater.update(7L, c -> replaced(c, "never"))));
          refused.add(catchThrowable(() -> updater.update("7", c -> replaced(c, "never"))));
          Thread.currentThread().interrupt();
          throw new AssertionError("an Error from three levels down");
        });
        return replaced(cs, "never");
      });
      return replaced(c7, "never");
    }))).get(30, TimeUnit.SECONDS);
    assertThat(failure).isInstanceOf(AssertionError.class)
        .hasMessage("an Error from three levels down");
    assertThat(refused).allSatisfy(e -> assertThat(e).isInstanceOf(IllegalStateException.class));

    // The same thread, afterwards: every document updates, alone and nested, and waits for
    // no lock it kept by mistake.
    List<Object> written = one.submit(() -> {
      Thread.interrupted();
      List<Object> ok = new ArrayList<>();
      ok.add(updater.update(7L, c -> replaced(c, "a")).written());
      ok.add(updater.update("7", c -> replaced(c, "a")).written());
      ok.add(updater.update("x", c -> {
        updater.update(7, c7 -> replaced(c7, "b"));
        return replaced(c, "a");
      }).written());
      return ok;
    }).get(30, TimeUnit.SECONDS);
    assertThat(written).containsExactly(true, true, true);
    assertThat(log(7)).containsExactly("a", "b");
    assertThat(log("7")).containsExactly("a");
    assertThat(log("x")).containsExactly("a");
    for (String key : List.of("docs:7", "docs:x")) {
      Optional<LockHandle> free = locks.tryAcquire(key);
      assertThat(free).as(key).isPresent();
      free.get().close();
    }
  }
}
