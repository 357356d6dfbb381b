package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Turns of the MongoDB lease lock across owners: bounded, and fair to another's waiter. */
class MongoLeaseTurnsTest {
  private final MongoCollection<Document> locks =
      TestMongo.freshDatabase("MongoLeaseTurns").getCollection("locks");
  private final List<MongoLeaseLockService> services = new ArrayList<>();

  private MongoLeaseLockService service(String owner) {
    MongoLeaseLockService service = MongoLeaseLockService.builder(locks).noCleanup().owner(owner)
        .build();
    services.add(service);
    return service;
  }

  @AfterEach
  void close() {
    services.forEach(MongoLeaseLockService::close);
  }

  @Test
  void aTurnLongerThanHalfTheLeaseIsRefusedNamingBoth() {
    assertThatThrownBy(() -> MongoLeaseLockService.builder(locks).lease(Duration.ofSeconds(10))
        .handoffSlice(Duration.ofMillis(5001)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("handoffSlice must be at most half the lease")
        .hasMessageContaining("PT5.001S").hasMessageContaining("PT10S");
    assertThatThrownBy(() -> MongoLeaseLockService.builder(locks).handoffSlice(Duration.ZERO))
        .hasMessageContaining("handoffSlice must be positive, was PT0S");
    assertThatThrownBy(() -> MongoLeaseLockService.builder(locks)
        .handoffSlice(Duration.ofMillis(-1))).hasMessageContaining("handoffSlice");
    MongoLeaseLockService.builder(locks).noCleanup().lease(Duration.ofSeconds(10))
        .handoffSlice(Duration.ofSeconds(5)).build().close();
  }

  /**
   * Owner a always has a successor queued (every hold closes for one) and asks again at once;
   * b's waiter still gets the key within its lock wait, again and again: a's turn ends after
   * {@code handoffSlice}, and its release, asked for by b, makes a yield.
   */
  @Test
  void anOwnerThatAlwaysHasASuccessorQueuedNeverStarvesAnotherOwnersWaiter() throws Exception {
    MongoLeaseLockService a = service("node-a");
    MongoLeaseLockService b = service("node-b");
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger aHolds = new AtomicInteger();
    CompletableFuture<Void> hot = CompletableFuture.runAsync(() -> {
      while (!stop.get()) {
        a.acquire("doc", Duration.ofSeconds(10)).closeForSuccessor();
        aHolds.incrementAndGet();
      }
    });
    try {
      for (int i = 0; i < 10; i++) {
        int before = aHolds.get();
        try (LockHandle held = b.acquire("doc", Duration.ofSeconds(5))) {
          assertThat(held.isLost()).isFalse();
        }
        while (aHolds.get() == before && !hot.isDone()) {
          Thread.onSpinWait(); // a had a turn in between, so b waits behind it again
        }
      }
    } finally {
      stop.set(true);
      hot.get(10, TimeUnit.SECONDS);
    }
  }
}
