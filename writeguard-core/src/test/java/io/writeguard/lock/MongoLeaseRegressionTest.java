package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.writeguard.Ticker;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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

  /**
   * A ticker that stops one thread in its next clock read made from inside
   * {@code MongoLeaseLockService.holdLease}: that read sits between the hand-out's "is the
   * session usable?" check and the hand-out itself.
   */
  private static final class HoldLeaseGate implements Ticker {
    volatile Thread gated;
    final CountDownLatch reached = new CountDownLatch(1);
    final CountDownLatch open = new CountDownLatch(1);

    @Override
    public long nanoTime() {
      if (Thread.currentThread() == gated && calledFromHoldLease()) {
        gated = null;
        reached.countDown();
        try {
          open.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return System.nanoTime();
    }

    private static boolean calledFromHoldLease() {
      return StackWalker.getInstance().walk(frames -> frames.anyMatch(f -> f.getMethodName().equals("holdLease")));
    }
  }

  @Test
  void handleHandedOutFromASessionLostAtThatInstantReportsLost() throws Exception {
    HoldLeaseGate gate = new HoldLeaseGate();
    List<Long> announced = new CopyOnWriteArrayList<>();
    service = MongoLeaseLockService.builder(locks).noCleanup().noRenewal().lease(Duration.ofSeconds(30))
        .handoffSlice(Duration.ofSeconds(10)).ticker(gate)
        .listener(new WriteGuardListener() {
          @Override
          public void onLeaseLost(String backend, String key, long token) {
            announced.add(token);
          }
        }).build();
    MongoLeaseHandle first = (MongoLeaseHandle) service.acquire("k", Duration.ofSeconds(5));
    AtomicReference<LockHandle> second = new AtomicReference<>();
    Thread waiter = new Thread(() -> second.set(service.acquire("k", Duration.ofSeconds(20))));
    waiter.start();
    while (service.waitingLocally("k") == 0) {
      Thread.sleep(5);
    }
    gate.gated = waiter;
    first.close(); // a waiter is queued: the lease is kept and handed to it
    assertThat(gate.reached.await(20, TimeUnit.SECONDS)).as("the waiter reached the hand-out").isTrue();
    // Renewal found the lock document taken over, exactly now.
    service.sessionLost(first.session, "the lock document was taken over (test)");
    gate.open.countDown();
    waiter.join(20_000);
    LockHandle handedOut = second.get();
    assertThat(handedOut).isNotNull();
    try {
      assertThat(announced).hasSize(1);
      assertThat(handedOut.isLost()).as("a handle from a lost lease must say so").isTrue();
    } finally {
      handedOut.close();
    }
  }

  @Test
  void lostSessionIsForgottenWhenItsHolderCloses() throws Exception {
    service = MongoLeaseLockService.builder(locks).noCleanup().noRenewal().lease(Duration.ofSeconds(30)).build();
    MongoLeaseHandle held = (MongoLeaseHandle) service.acquire("gone", Duration.ofSeconds(5));
    service.sessionLost(held.session, "the lock document was taken over (test)");
    assertThat(held.isLost()).isTrue();
    held.close();
    assertThat(service.sessionCount()).as("sessions kept in memory after the lost holder closed").isZero();
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
}
