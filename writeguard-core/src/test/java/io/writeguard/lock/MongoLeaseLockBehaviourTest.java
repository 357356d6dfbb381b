package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.Concurrently;
import io.writeguard.testing.FakeTime;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the MongoDB lease lock adds to the contract: several owners, backoff, cleanup, hand-off. */
class MongoLeaseLockBehaviourTest {
  private final MongoCollection<Document> locks =
      TestMongo.freshDatabase("MongoLeaseBehaviour").getCollection("locks");
  private final List<MongoLeaseLockService> services = new ArrayList<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  private MongoLeaseLockService service(MongoLeaseLockService.Builder builder) {
    MongoLeaseLockService service = builder.build();
    services.add(service);
    return service;
  }

  private MongoLeaseLockService.Builder builder() {
    return MongoLeaseLockService.builder(locks).noCleanup();
  }

  @AfterEach
  void close() throws InterruptedException {
    services.forEach(MongoLeaseLockService::close);
    pool.shutdownNow();
    pool.awaitTermination(10, TimeUnit.SECONDS);
  }

  @Test
  void badSettingsAreRefusedAtBuildTimeNamingTheValue() {
    assertThatThrownBy(() -> builder().lease(Duration.ofSeconds(1)).renewInterval(Duration.ofSeconds(1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("renewInterval must be shorter than the lease").hasMessageContaining("PT1S");
    assertThatThrownBy(() -> builder().lease(Duration.ofSeconds(1)).renewInterval(Duration.ofSeconds(2)).build())
        .hasMessageContaining("PT2S");
    assertThatThrownBy(() -> builder().lease(Duration.ZERO)).hasMessageContaining("lease must be positive, was PT0S");
    assertThatThrownBy(() -> builder().lease(Duration.ofMillis(-1))).hasMessageContaining("lease");
    assertThatThrownBy(() -> builder().lease(Duration.ofNanos(500)).noRenewal().build())
        .hasMessageContaining("at least 1ms");
    assertThatThrownBy(() -> builder().renewInterval(Duration.ZERO)).hasMessageContaining("renewInterval");
    assertThatThrownBy(() -> builder().handoffBatch(0)).hasMessageContaining("handoffBatch must be >= 1, was 0");
    assertThatThrownBy(() -> builder().backoff(Duration.ofMillis(50), Duration.ofMillis(10)).build())
        .hasMessageContaining("minBackoff must not exceed maxBackoff");
    assertThatThrownBy(() -> builder().owner(" ")).hasMessageContaining("owner must not be blank");
    assertThatThrownBy(() -> MongoLeaseLockService.builder(null)).hasMessageContaining("collection");
  }

  @Test
  void anUnreachableServerIsABackendFailureNotBusy() {
    try (MongoClient dead = MongoClients.create(
        "mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300&connectTimeoutMS=300")) {
      MongoLeaseLockService locksOnDeadServer = service(MongoLeaseLockService
          .builder(dead.getDatabase("x"), "locks").noCleanup());
      assertThatThrownBy(() -> locksOnDeadServer.acquire("k", Duration.ofSeconds(5)))
          .isInstanceOf(LockBackendException.class)
          .hasMessageContaining("'k'").hasMessageContaining("attempt 1");
      assertThatThrownBy(() -> locksOnDeadServer.tryAcquire("k")).isInstanceOf(LockBackendException.class);
    }
  }

  @Test
  void aBusyHeadBacksOffWithinBoundsAndTimesOutOnTheInjectedClock() {
    MongoLeaseLockService holder = service(builder().lease(Duration.ofHours(1)));
    FakeTime time = new FakeTime();
    MongoLeaseLockService waiter = service(builder().ticker(time.ticker()).sleeper(time.sleeper())
        .backoff(Duration.ofMillis(10), Duration.ofMillis(80)));
    try (LockHandle held = holder.acquire("busy", Duration.ofSeconds(5))) {
      assertThatThrownBy(() -> waiter.acquire("busy", Duration.ofSeconds(1)))
          .isInstanceOf(LockTimeoutException.class).hasMessageContaining("mongo lock 'busy'")
          .hasMessageContaining("1000ms");
      assertThat(held.isLost()).isFalse();
    }
    List<Duration> sleeps = time.sleeps();
    assertThat(sleeps).isNotEmpty().allSatisfy(d -> assertThat(d).isLessThanOrEqualTo(Duration.ofMillis(80)));
    assertThat(sleeps.stream().mapToLong(Duration::toNanos).sum()).isEqualTo(Duration.ofSeconds(1).toNanos());
    assertThat(sleeps.get(0)).isLessThanOrEqualTo(Duration.ofMillis(10));
    assertThat(sleeps.size()).as("attempts stay bounded by the backoff").isBetween(13, 40);
    assertThat(waiter.lockDocument("busy").get("contendedAt")).as("the holder learns it is contended").isNotNull();
  }

  @Test
  void theWatchdogRenewsSoAnotherOwnerCannotTakeTheLock() throws Exception {
    // A 2 s lease renewed every 100 ms: a stall of almost 2 s on a loaded machine is tolerated.
    MongoLeaseLockService a = service(builder().lease(Duration.ofMillis(2000)).renewInterval(Duration.ofMillis(100)));
    MongoLeaseLockService b = service(builder().lease(Duration.ofMillis(2000)));
    try (LockHandle held = a.acquire("renewed", Duration.ofSeconds(5))) {
      long until = System.nanoTime() + Duration.ofMillis(5000).toNanos(); // two and a half leases
      while (System.nanoTime() < until) {
        assertThat(b.tryAcquire("renewed")).as("another owner takes a renewed lock").isEmpty();
        Thread.sleep(50);
      }
      assertThat(held.isLost()).isFalse();
    }
    assertThat(b.tryAcquire("renewed")).hasValueSatisfying(LockHandle::close);
  }

  @Test
  void anExpiredOwnerIsTakenOverAndCanNeitherReleaseNorRenewTheNewLock() throws Exception {
    List<Long> lost = new CopyOnWriteArrayList<>();
    WriteGuardListener listener = new WriteGuardListener() {
      @Override
      public void onLeaseLost(String backend, String key, long token) {
        lost.add(token);
      }
    };
    FakeTime frozen = new FakeTime(); // a's clock stands still: it believes its lease is fine
    MongoLeaseLockService a = service(builder().lease(Duration.ofMillis(200)).noRenewal()
        .ticker(frozen.ticker()).listener(listener));
    MongoLeaseLockService b = service(builder().lease(Duration.ofSeconds(10)));
    LockHandle stale = a.acquire("taken", Duration.ofSeconds(5));
    Thread.sleep(400); // past the lease on the server's clock
    try (LockHandle next = b.acquire("taken", Duration.ofSeconds(5))) {
      assertThat(next.token()).isGreaterThan(stale.token());
      assertThat(stale.isLost()).as("a's own clock has not run out").isFalse();
      stale.close();
      assertThat(a.tryAcquire("taken")).as("a's release did not free b's lock").isEmpty();
      Document doc = b.lockDocument("taken");
      assertThat(doc.getString("owner")).isEqualTo(b.owner());
    }
    assertThat(lost).isEmpty();
  }

  @Test
  void tokensKeepRisingWhenTheCleanerDeletesIdleLockDocuments() throws Exception {
    MongoLeaseLockService locksWithCleaner = service(builder().lease(Duration.ofMillis(50)).noRenewal()
        .cleanup(Duration.ofHours(1), Duration.ZERO));
    long first;
    try (LockHandle handle = locksWithCleaner.acquire("idle", Duration.ofSeconds(5))) {
      first = handle.token();
    }
    try (LockHandle busy = locksWithCleaner.acquire("busy-key", Duration.ofSeconds(5))) {
      Thread.sleep(200);
      // "busy-key" is expired too, but still held; "idle" is released and expired.
      busy.close();
      Thread.sleep(100);
    }
    assertThat(locksWithCleaner.deleteStaleLocks()).isEqualTo(2);
    assertThat(locks.countDocuments(Filters.type("_id", "string"))).isZero();
    try (LockHandle again = locksWithCleaner.acquire("idle", Duration.ofSeconds(5))) {
      assertThat(again.token()).as("a re-created key restarts above the deleted tokens").isGreaterThan(first);
    }
    Document floor = locks.find(Filters.eq("_id", MongoLockStore.FLOOR_ID)).first();
    assertThat(floor.getLong("floor")).isGreaterThanOrEqualTo(first);
  }

  @Test
  void theCleanerNeverDeletesALiveLock() throws Exception {
    MongoLeaseLockService service = service(builder().lease(Duration.ofSeconds(10)).cleanup(Duration.ofHours(1), Duration.ZERO));
    try (LockHandle held = service.acquire("live", Duration.ofSeconds(5))) {
      assertThat(service.deleteStaleLocks()).isZero();
      assertThat(service.lockDocument("live")).isNotNull();
    }
  }

  @Test
  void localCallersShareOneLeaseInTurnWithRisingTokens() throws Exception {
    MongoLeaseLockService service = service(builder().handoffBatch(16).handoffSlice(Duration.ofSeconds(5)));
    int threads = 6;
    int perThread = 30;
    ConcurrentLinkedQueue<Long> tokens = new ConcurrentLinkedQueue<>();
    AtomicInteger holders = new AtomicInteger();
    AtomicBoolean overlap = new AtomicBoolean();
    Concurrently.run(threads, Duration.ofSeconds(60), thread -> {
      for (int i = 0; i < perThread; i++) {
        try (LockHandle handle = service.acquire("shared", Duration.ofSeconds(30))) {
          if (holders.incrementAndGet() != 1) {
            overlap.set(true);
          }
          tokens.add(handle.token()); // in holding order
          Thread.yield();
          holders.decrementAndGet();
        }
      }
    });
    assertThat(overlap).isFalse();
    List<Long> inOrder = new ArrayList<>(tokens);
    assertThat(inOrder).hasSize(threads * perThread).isSorted().doesNotHaveDuplicates();
    long storedTop = ((Number) service.lockDocument("shared").get("token")).longValue();
    long takes = storedTop / 16;
    assertThat(takes).as("round trips to take the lease, for %d holders", inOrder.size())
        .isLessThan(inOrder.size());
  }

  @Test
  void twoOwnersWithSeveralThreadsEachKeepAnExactTotalInMongo() throws Exception {
    MongoCollection<Document> data = TestMongo.freshDatabase("MongoLeaseTotals").getCollection("counters");
    data.insertOne(new Document("_id", "c").append("n", 0L));
    FencedWriter writer = FencedWriter.of(data);
    List<MongoLeaseLockService> owners = List.of(
        service(builder().lease(Duration.ofSeconds(5)).backoff(Duration.ofMillis(1), Duration.ofMillis(20))),
        service(builder().lease(Duration.ofSeconds(5)).backoff(Duration.ofMillis(1), Duration.ofMillis(20))));
    int perThread = 25;
    AtomicInteger acknowledged = new AtomicInteger();
    Concurrently.run(2 * 3, Duration.ofSeconds(90), thread -> {
      MongoLeaseLockService owner = owners.get(thread / 3); // three threads per owner
      for (int i = 0; i < perThread; i++) {
        try (LockHandle lock = owner.acquire("counter", Duration.ofSeconds(60))) {
          long n = writer.claim(lock, "c").orElseThrow().getLong("n");
          Thread.yield();
          assertThat(writer.updateOne(lock, "c", com.mongodb.client.model.Updates.set("n", n + 1)))
              .isEqualTo(FencedWriter.Outcome.APPLIED);
          acknowledged.incrementAndGet();
        }
      }
    });
    assertThat(acknowledged.get()).isEqualTo(2 * 3 * perThread);
    assertThat(data.find().first().getLong("n")).isEqualTo(2L * 3 * perThread);
  }

  @Test
  void aKeptLeaseIsReleasedWhenItsWaiterGivesUp() throws Exception {
    MongoLeaseLockService a = service(builder().lease(Duration.ofSeconds(10)).handoffSlice(Duration.ofSeconds(5)));
    MongoLeaseLockService b = service(builder().lease(Duration.ofSeconds(10)));
    LockHandle first = a.acquire("parked", Duration.ofSeconds(5));
    Future<Optional<Throwable>> waiter = pool.submit(() -> {
      try {
        a.acquire("parked", Duration.ofMillis(300)).close();
        return Optional.empty();
      } catch (LockTimeoutException e) {
        return Optional.of(e);
      }
    });
    Thread.sleep(100); // the waiter is queued when first releases, so the lease may be kept for it
    first.close();
    waiter.get(10, TimeUnit.SECONDS);
    // Whether the waiter used the kept lease or gave up, the lease must be free again soon.
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
        .until(() -> b.tryAcquire("parked").map(h -> {
          h.close();
          return true;
        }).orElse(false));
  }
}
