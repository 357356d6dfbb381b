package io.writeguard.lock;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoSocketReadException;
import com.mongodb.ServerAddress;
import com.mongodb.client.MongoCollection;
import io.writeguard.testing.TestMongo;
import io.writeguard.testing.WriteHook;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Review of issue 35: a MongoDB lock's release still being sent in the background when its
 * lease runs out and another process takes the key. The background send that comes after must
 * not free the new holder's lock (it is filtered on the first holder's owner and attempt).
 */
class MongoLockBackgroundReleaseTest {
  private static final Duration LEASE = Duration.ofMillis(400);

  @Test
  void aBackgroundReleaseAfterAnotherProcessTookTheKeyLeavesItsLock() throws Exception {
    MongoCollection<Document> locks =
        TestMongo.freshDatabase("LockBackground").getCollection("locks");
    locks.find().first(); // connected before anything is timed
    CountDownLatch secondHolds = new CountDownLatch(1);
    CountDownLatch backgroundSent = new CountDownLatch(1);
    boolean[] failReleases = {false};
    WriteHook hook = new WriteHook((n, send) -> {
      if (Thread.currentThread().getName().startsWith("writeguard-must-finish")) {
        assertThat(secondHolds.await(8, TimeUnit.SECONDS)).isTrue();
        try {
          return send.call();
        } finally {
          backgroundSent.countDown();
        }
      }
      if (failReleases[0]) {
        throw new MongoSocketReadException("injected: reply lost", new ServerAddress());
      }
      return send.call();
    });
    MongoLeaseLockService first = MongoLeaseLockService.builder(hook.wrap(locks)).owner("A")
        .lease(LEASE).withoutWatchdog().noCleanup().build();
    MongoLeaseLockService second = MongoLeaseLockService.builder(locks).owner("B")
        .lease(LEASE).withoutWatchdog().noCleanup().build();
    try {
      LockHandle held = first.acquire("k", Duration.ofSeconds(10));
      failReleases[0] = true;
      assertThatThrownBy(held::close).isInstanceOf(LockBackendException.class);

      Thread.sleep(LEASE.toMillis() + 200); // A's lease runs out (server clock)
      Optional<LockHandle> taken = second.tryAcquire("k");
      assertThat(taken).as("the lease ran out: B takes the key").isPresent();
      secondHolds.countDown();
      assertThat(backgroundSent.await(10, TimeUnit.SECONDS)).isTrue();

      Document doc = locks.find(eq("_id", "k")).first();
      assertThat(doc.getString("owner")).as("B still holds the key").isEqualTo("B");
      taken.get().close();
    } finally {
      secondHolds.countDown();
      first.close();
      second.close();
    }
  }
}
