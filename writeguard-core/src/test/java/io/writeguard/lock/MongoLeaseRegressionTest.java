package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import io.writeguard.testing.ApplyThenFail;
import io.writeguard.testing.FakeTime;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Regression tests for bugs found in review of the MongoDB lease lock, one per bug. */
class MongoLeaseRegressionTest {
  private final MongoCollection<Document> locks =
      TestMongo.freshDatabase("MongoLeaseRegression").getCollection("locks");
  private MongoLeaseLockService service;

  @AfterEach
  void close() {
    if (service != null) {
      service.close();
    }
  }

  // The race "handed out from a lease lost at that instant" is now in LockServiceContract.

  @Test
  void lostSessionIsForgottenWhenItsHolderCloses() throws Exception {
    FakeTime time = new FakeTime();
    service = MongoLeaseLockService.builder(locks).noCleanup().noRenewal().lease(Duration.ofSeconds(30))
        .ticker(time.ticker()).build();
    LockHandle held = service.acquire("gone", Duration.ofSeconds(5));
    time.advance(Duration.ofSeconds(31)); // ran out on this side's clock; still ours on the server's
    assertThat(held.isLost()).isTrue();
    held.close();
    assertThat(service.engine().leaseCount()).as("leases kept in memory after the lost holder closed").isZero();
    assertThat(service.lockDocument("gone").get("owner")).as("the document was released").isNull();
  }

  @Test
  void acquireRacingCloseDoesNotFailWithARejectedWatchdog() throws Exception {
    service = MongoLeaseLockService.builder(locks).noCleanup().lease(Duration.ofSeconds(30)).handoffBatch(1).build();
    LockHandle first = service.acquire("closing", Duration.ofSeconds(5));
    AtomicReference<Object> second = new AtomicReference<>();
    Thread waiter = new Thread(() -> {
      try {
        second.set(service.acquire("closing", Duration.ofSeconds(20)));
      } catch (RuntimeException e) {
        second.set(e);
      }
    });
    waiter.start();
    while (service.waitingLocally("closing") == 0) {
      Thread.sleep(5);
    }
    service.close(); // the waiter is already queued; its turn comes after the close
    first.close();
    waiter.join(20_000);
    assertThat(second.get()).as("the queued caller gets the lock, not RejectedExecutionException")
        .isInstanceOf(LockHandle.class);
    ((LockHandle) second.get()).close();
    assertThat(service.lockDocument("closing").get("owner")).isNull();
  }

  /**
   * Regression (issue 8): a take sent twice (a driver retry after a lost reply, on a server
   * without retryable writes) found the key busy with its own lease and blocked it for a lease.
   */
  @Test
  void aTakeSentAgainFindsItsOwnAttemptAndIsGranted() {
    MongoLockStore store = new MongoLockStore(locks, 30_000,
        io.writeguard.internal.Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(2)), io.writeguard.Sleeper.system());
    assertThat(store.take("resent", "me", "7", 4, false).grant()).isNotNull();
    assertThat(store.take("resent", "me", "7", 4, false).grant()).as("the same attempt again").isNotNull();
    assertThat(store.take("resent", "me", "8", 4, false).grant()).as("another attempt: busy").isNull();
    assertThat(store.take("resent", "you", "7", 4, false).grant()).as("another owner: busy").isNull();
  }

  /**
   * Regression (review of the engine): two services with the same owner id both counted attempt
   * ids from 1, so the second one's take matched the holder's {owner, attempt} as a resend and
   * was granted while the first still held the key.
   */
  @Test
  void twoServicesWithTheSameOwnerIdNeverBothHoldAKey() {
    service = MongoLeaseLockService.builder(locks).noCleanup().owner("replica").build();
    MongoLeaseLockService twin = MongoLeaseLockService.builder(locks).noCleanup().owner("replica").build();
    try (LockHandle held = service.acquire("shared", Duration.ofSeconds(5))) {
      assertThat(twin.tryAcquire("shared")).as("held by the other service").isEmpty();
      assertThat(held.isLost()).isFalse();
    } finally {
      twin.close();
    }
  }

  @Test
  void aFailedContendedMarkIsStillBusyNotABackendFailure() {
    // The mark that asks a batching holder to step aside is best effort: when it fails, the
    // caller must keep waiting for the busy key, not fail as if the lock store were down.
    service = MongoLeaseLockService.builder(locks).noCleanup().build();
    ApplyThenFail faults = ApplyThenFail.atWrites(2, 1000); // write 1: the busy take; 2+: marks and retakes
    MongoLeaseLockService waiter = MongoLeaseLockService.builder(faults.wrap(locks)).noCleanup()
        .backoff(Duration.ofMillis(1), Duration.ofMillis(5)).build();
    try (LockHandle held = service.acquire("busy", Duration.ofSeconds(5))) {
      assertThatThrownBy(() -> waiter.acquire("busy", Duration.ofMillis(300)))
          .isInstanceOf(LockTimeoutException.class);
      assertThat(faults.fired()).as("the contended mark failed").isTrue();
      assertThat(held.isLost()).isFalse();
    } finally {
      waiter.close();
    }
  }
}
