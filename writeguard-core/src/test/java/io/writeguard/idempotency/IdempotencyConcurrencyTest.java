package io.writeguard.idempotency;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Real threads racing for the same keys; leases judged by the server's clock. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IdempotencyConcurrencyTest {
  private final MongoCollection<Document> collection =
      TestMongo.freshDatabase("OnceRace").getCollection("once");
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  @Test
  void manyThreadsSameKeyRunTheActionExactlyOnce() throws Exception {
    IdempotencyStore store = IdempotencyStore.builder(collection)
        .waitTimeout(Duration.ofSeconds(20)).build();
    int threads = 16;
    AtomicInteger runs = new AtomicInteger();
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Future<OnceResult<String>>> results = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int caller = t;
      results.add(pool.submit(() -> {
        start.await();
        return store.once("charge:order-7", String.class, () -> {
          runs.incrementAndGet();
          Thread.sleep(100); // slow enough that the others must wait for the claim
          return "charged by " + caller;
        });
      }));
    }
    List<OnceResult<String>> outcomes = new ArrayList<>();
    for (Future<OnceResult<String>> f : results) {
      outcomes.add(f.get(30, TimeUnit.SECONDS));
    }
    assertThat(runs).hasValue(1);
    assertThat(outcomes).filteredOn(OnceResult::executed).hasSize(1);
    assertThat(outcomes).extracting(OnceResult::value).containsOnly(outcomes.get(0).value());
  }

  @Test
  void manyThreadsManyKeysEachActionOnce() throws Exception {
    IdempotencyStore store = IdempotencyStore.builder(collection)
        .waitTimeout(Duration.ofSeconds(20)).build();
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    List<String> keys = new ArrayList<>();
    for (int k = 0; k < 40; k++) {
      keys.add("key-" + k);
    }
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      workers.add(pool.submit(() -> {
        List<String> mine = new ArrayList<>(keys);
        Collections.shuffle(mine);
        for (String key : mine) {
          OnceResult<String> r = store.once(key, String.class, () -> {
            runs.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
            return key.toUpperCase();
          });
          assertThat(r.value()).isEqualTo(key.toUpperCase());
        }
        return null;
      }));
    }
    for (Future<?> w : workers) {
      w.get(30, TimeUnit.SECONDS);
    }
    assertThat(runs).hasSize(40);
    assertThat(runs.values()).allMatch(n -> n.get() == 1);
    assertThat(collection.countDocuments(eq("state", "done"))).isEqualTo(40);
  }

  @Test
  void claimStillRunningPastTheWaitIsTypedAndNothingRuns() throws Exception {
    IdempotencyStore holder = IdempotencyStore.builder(collection).build();
    IdempotencyStore impatient = IdempotencyStore.builder(collection)
        .waitTimeout(Duration.ofMillis(150)).build();
    CountDownLatch claimed = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    Future<OnceResult<String>> first = pool.submit(() -> holder.once("k", String.class, () -> {
      claimed.countDown();
      finish.await();
      return "first";
    }));
    assertThat(claimed.await(10, TimeUnit.SECONDS)).isTrue();
    Document before = collection.find(eq("_id", "k")).first();

    AtomicInteger runs = new AtomicInteger();
    assertThatThrownBy(() -> impatient.once("k", String.class, () -> "second " + runs.incrementAndGet()))
        .isInstanceOfSatisfying(IdempotencyInProgressException.class, e -> {
          assertThat(e.key()).isEqualTo("k");
          assertThat(e.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(150));
        })
        .hasMessageContaining("'k'")
        .hasMessageContaining(before.getString("owner"));
    assertThat(runs).hasValue(0);
    assertThat(collection.find(eq("_id", "k")).first()).isEqualTo(before);

    finish.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(new OnceResult<>("first", true));
    assertThat(impatient.once("k", String.class, () -> "third"))
        .isEqualTo(new OnceResult<>("first", false));
  }

  @Test
  void claimAbandonedByACrashedProcessIsTakenOverAfterItsLease() {
    // What a process leaves behind when it dies after claiming: a pending claim, never finished.
    collection.insertOne(new Document("_id", "k").append("state", "pending")
        .append("owner", "dead-process").append("leaseMillis", 200L).append("takeovers", 0)
        .append("claimedAt", new Date()));
    IdempotencyStore store = IdempotencyStore.builder(collection)
        .waitTimeout(Duration.ofSeconds(10)).build();

    OnceResult<String> result = store.once("k", String.class, () -> "recovered");

    assertThat(result).isEqualTo(new OnceResult<>("recovered", true));
    Document record = collection.find(eq("_id", "k")).first();
    assertThat(record).containsEntry("state", "done").containsEntry("takeovers", 1);
    assertThat(record.getString("owner")).isNotEqualTo("dead-process");
  }

  @Test
  void lateFinisherAfterTakeoverCannotOverwriteTheNewOutcome() throws Exception {
    IdempotencyStore shortLease = IdempotencyStore.builder(collection)
        .lease(Duration.ofMillis(300)).build();
    IdempotencyStore patient = IdempotencyStore.builder(collection)
        .waitTimeout(Duration.ofSeconds(10)).build();
    CountDownLatch claimed = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    Future<OnceResult<String>> stalled = pool.submit(() ->
        shortLease.once("k", String.class, () -> {
          claimed.countDown();
          finish.await(); // a GC pause or a hung call, longer than the lease
          return "stalled";
        }));
    assertThat(claimed.await(10, TimeUnit.SECONDS)).isTrue();

    OnceResult<String> takeover = patient.once("k", String.class, () -> "took over");
    assertThat(takeover).isEqualTo(new OnceResult<>("took over", true));

    finish.countDown();
    assertThatThrownBy(() -> stalled.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(OutcomeNotRecordedException.class)
        .hasMessageContaining("lease of 300ms ran out");
    assertThat(collection.find(eq("_id", "k")).first()).containsEntry("outcome", "took over");
    assertThat(patient.once("k", String.class, () -> "again"))
        .isEqualTo(new OnceResult<>("took over", false));
  }

  @Test
  void unexpiredClaimIsNotTakenOver() {
    collection.insertOne(new Document("_id", "k").append("state", "pending")
        .append("owner", "alive").append("leaseMillis", 60_000L).append("takeovers", 0)
        .append("claimedAt", new Date()));
    IdempotencyStore store = IdempotencyStore.builder(collection)
        .waitTimeout(Duration.ofMillis(100)).build();
    assertThatThrownBy(() -> store.once("k", String.class, () -> "no"))
        .isInstanceOf(IdempotencyInProgressException.class);
    collection.updateOne(eq("_id", "k"), Updates.set("leaseMillis", 1L));
    assertThat(store.once("k", String.class, () -> "yes").executed()).isTrue();
  }
}
