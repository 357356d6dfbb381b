package io.writeguard.combine;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Updates;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockService;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.testing.Concurrently;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KeyedCombinerTest {
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final List<List<Integer>> batches = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  /** Parks of waiting callers in the combiners {@link #recording} builds. */
  private final AtomicInteger parks = new AtomicInteger();

  /** Answers each request with itself times ten, recording each batch. */
  private KeyedCombiner<Integer, Integer> recording(int maxBatch, CountDownLatch holdFirst) {
    AtomicInteger steps = new AtomicInteger();
    return KeyedCombiner.<Integer, Integer>builder((key, batch) -> {
      List<Integer> seen = new ArrayList<>();
      for (int i = 0; i < batch.size(); i++) {
        seen.add(batch.request(i));
      }
      batches.add(seen);
      if (steps.getAndIncrement() == 0 && holdFirst != null) {
        await(holdFirst);
      }
      for (int i = 0; i < batch.size(); i++) {
        batch.succeed(i, batch.request(i) * 10);
      }
    }).maxBatch(maxBatch).onPark(parks::incrementAndGet).build();
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(60, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  private static void waitUntil(BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition reached in 60s").isLessThan(deadline);
      Thread.yield();
    }
  }

  @Test
  void aLoneCallerRunsItsOwnBatchAtOnceAndNeverParks() {
    KeyedCombiner<Integer, Integer> combiner = recording(8, null);
    for (int i = 0; i < 100; i++) {
      assertThat(combiner.submit("k", i, Duration.ofSeconds(1))).isEqualTo(i * 10);
    }
    assertThat(parks).hasValue(0);
    assertThat(batches).hasSize(100).allMatch(b -> b.size() == 1);
    assertThat(combiner.waiting("k")).isZero();
  }

  @Test
  void batchesAreFifoBoundedAndTakeOnlyWhatIsQueued() throws Exception {
    CountDownLatch hold = new CountDownLatch(1);
    KeyedCombiner<Integer, Integer> combiner = recording(4, hold);
    List<Future<Integer>> futures = new ArrayList<>();
    futures.add(pool.submit(() -> combiner.submit("k", 0, Duration.ofSeconds(60))));
    waitUntil(() -> batches.size() == 1); // the first caller leads, held inside its step
    for (int i = 1; i <= 10; i++) {
      int request = i;
      futures.add(pool.submit(() -> combiner.submit("k", request, Duration.ofSeconds(60))));
      waitUntil(() -> combiner.waiting("k") == request);
    }
    hold.countDown();
    for (int i = 0; i < futures.size(); i++) {
      assertThat(futures.get(i).get(60, TimeUnit.SECONDS)).isEqualTo(i * 10);
    }
    assertThat(batches).containsExactly(
        List.of(0), List.of(1, 2, 3, 4), List.of(5, 6, 7, 8), List.of(9, 10));
    assertThat(parks.get()).as("the queued callers waited parked, and were counted")
        .isGreaterThanOrEqualTo(10);
  }

  @Test
  void aStepThatThrowsFailsOnlyTheRequestsItLeftUnanswered() throws Exception {
    CountDownLatch hold = new CountDownLatch(1);
    AtomicInteger steps = new AtomicInteger();
    KeyedCombiner<Integer, Integer> combiner = KeyedCombiner.<Integer, Integer>builder(
        (key, batch) -> {
          if (steps.getAndIncrement() == 0) {
            await(hold);
            batch.succeed(0, 0);
            return;
          }
          batch.succeed(0, 1);
          throw new IllegalStateException("step broke");
        }).build();
    Future<Integer> first = pool.submit(() -> combiner.submit("k", 0, Duration.ofSeconds(60)));
    waitUntil(() -> steps.get() == 1);
    Future<Integer> a = pool.submit(() -> combiner.submit("k", 1, Duration.ofSeconds(60)));
    waitUntil(() -> combiner.waiting("k") == 1);
    Future<Integer> b = pool.submit(() -> combiner.submit("k", 2, Duration.ofSeconds(60)));
    waitUntil(() -> combiner.waiting("k") == 2);
    hold.countDown();
    assertThat(first.get(60, TimeUnit.SECONDS)).isZero();
    assertThat(a.get(60, TimeUnit.SECONDS)).isEqualTo(1);
    assertThatThrownBy(() -> b.get(60, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class)
        .hasMessageContaining("step broke");
  }

  @Test
  void aQueuedRequestIsWithdrawnAtItsDeadlineOrOnInterruptAndNeverRun() throws Exception {
    CountDownLatch hold = new CountDownLatch(1);
    KeyedCombiner<Integer, Integer> combiner = recording(8, hold);
    Future<Integer> first = pool.submit(() -> combiner.submit("k", 0, Duration.ofSeconds(60)));
    waitUntil(() -> batches.size() == 1);
    assertThatThrownBy(() -> combiner.submit("k", 1, Duration.ZERO))
        .isInstanceOf(CombineTimeoutException.class).hasMessageContaining("key k");
    AtomicInteger interruptedFlag = new AtomicInteger();
    Thread waiter = new Thread(() -> {
      try {
        combiner.submit("k", 2, Duration.ofSeconds(60));
      } catch (WriteGuardInterruptedException e) {
        interruptedFlag.set(Thread.currentThread().isInterrupted() ? 1 : 2);
      }
    });
    waiter.start();
    waitUntil(() -> combiner.waiting("k") == 1);
    waiter.interrupt();
    waiter.join(60_000);
    assertThat(interruptedFlag.get()).as("interrupt flag restored").isEqualTo(1);
    hold.countDown();
    assertThat(first.get(60, TimeUnit.SECONDS)).isZero();
    assertThat(combiner.submit("k", 3, Duration.ofSeconds(1))).isEqualTo(30);
    assertThat(batches).containsExactly(List.of(0), List.of(3));
  }

  /**
   * One step at a time per key while callers come and go so often that a key's slot is
   * dropped (its last user left) and made again thousands of times, racing the callers that
   * arrive: a second slot for a key would let two leaders run steps for it at once. Every
   * request is answered exactly once and no slot outlives its users.
   */
  @Test
  void oneStepAtATimePerKeyWhileSlotsAreDroppedAndMadeAgain() throws Exception {
    int threads = 8;
    int perThread = 3_000;
    String[] keys = {"a", "b"};
    AtomicInteger[] running = {new AtomicInteger(), new AtomicInteger()};
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger answered = new AtomicInteger();
    KeyedCombiner<Integer, Integer> combiner = KeyedCombiner.<Integer, Integer>builder(
        (key, batch) -> {
          AtomicInteger inStep = running[key.equals("a") ? 0 : 1];
          if (inStep.incrementAndGet() != 1) {
            overlaps.incrementAndGet();
          }
          Thread.yield(); // widen the window a second leader would need
          for (int i = 0; i < batch.size(); i++) {
            batch.succeed(i, batch.request(i) + 1);
          }
          inStep.decrementAndGet();
        }).maxBatch(4).build();
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int me = t;
      done.add(pool.submit(() -> {
        for (int n = 0; n < perThread; n++) {
          int request = me * perThread + n;
          assertThat(combiner.submit(keys[(me + n) % 2], request, Duration.ofMinutes(1)))
              .isEqualTo(request + 1);
          answered.incrementAndGet();
          if (n % 7 == 0) {
            Thread.yield(); // let the key's users fall to zero now and then
          }
        }
        return null;
      }));
    }
    for (Future<?> f : done) {
      f.get(90, TimeUnit.SECONDS);
    }
    assertThat(overlaps).hasValue(0);
    assertThat(answered).hasValue(threads * perThread);
    assertThat(combiner.liveKeys()).isZero();
  }

  @Test
  void aStepSubmittingToItsOwnKeyIsRefusedInsteadOfWaitingForItself() {
    KeyedCombiner<Integer, Integer>[] self = new KeyedCombiner[1];
    self[0] = KeyedCombiner.<Integer, Integer>builder((key, batch) -> {
      assertThat(self[0].isLeading(key)).isTrue();
      assertThat(self[0].isLeading("other")).isFalse();
      batch.succeed(0, self[0].submit(key, 1, Duration.ofSeconds(1)));
    }).build();
    assertThatThrownBy(() -> self[0].submit("k", 0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("wait for itself");
  }

  @Test
  void aLocalLockHolderCombinesReadApplyWriteAndLosesNothing() throws Exception {
    lockHolderCombines(LocalLockService.create(), "local");
  }

  @Test
  void aMongoLeaseHolderCombinesReadApplyWriteAndLosesNothing() throws Exception {
    MongoDatabase db = TestMongo.freshDatabase("CombinerLease");
    try (MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "locks").build()) {
      lockHolderCombines(locks, "mongo");
    }
  }

  /**
   * Read-change-write of a counter with a plain replace (no version): only the lock keeps
   * the increments from being lost, and the combiner takes the lock once per batch.
   */
  private void lockHolderCombines(LockService locks, String name) throws Exception {
    MongoCollection<Document> docs = TestMongo.freshDatabase("Combiner" + name).getCollection("d");
    docs.insertOne(new Document("_id", "c").append("n", 0L).append("log", List.of()));
    AtomicInteger holds = new AtomicInteger();
    AtomicInteger combined = new AtomicInteger();
    KeyedCombiner<String, Long> combiner = KeyedCombiner.<String, Long>builder((key, batch) -> {
      try (LockHandle ignored = locks.acquire("counter:" + key, Duration.ofSeconds(60))) {
        holds.incrementAndGet();
        combined.addAndGet(batch.size());
        Document doc = docs.find(eq("_id", key)).first();
        long n = doc.getLong("n");
        List<String> log = new ArrayList<>(doc.getList("log", String.class));
        for (int i = 0; i < batch.size(); i++) {
          log.add(batch.request(i));
        }
        docs.replaceOne(eq("_id", key), doc.append("n", n + batch.size()).append("log", log));
        for (int i = 0; i < batch.size(); i++) {
          batch.succeed(i, n + i + 1);
        }
      }
    }).maxBatch(16).build();
    int threads = 32;
    int perThread = 15;
    List<Long> answers = new CopyOnWriteArrayList<>();
    Concurrently.run(threads, Duration.ofSeconds(110), thread -> {
      for (int i = 0; i < perThread; i++) {
        answers.add(combiner.submit("c", thread + "-" + i, Duration.ofSeconds(60)));
      }
    });
    int total = threads * perThread;
    Document doc = docs.find(eq("_id", "c")).first();
    assertThat(doc.getLong("n")).isEqualTo(total);
    assertThat(doc.getList("log", String.class)).doesNotHaveDuplicates().hasSize(total);
    assertThat(answers).doesNotHaveDuplicates().hasSize(total);
    assertThat(combined.get()).isEqualTo(total);
    assertThat(holds.get()).as("one lock hold per batch").isLessThanOrEqualTo(total);
    System.out.println(name + " lock: " + total + " updates in " + holds.get() + " lock holds");
    docs.updateOne(eq("_id", "c"), Updates.set("checked", true));
  }
}
