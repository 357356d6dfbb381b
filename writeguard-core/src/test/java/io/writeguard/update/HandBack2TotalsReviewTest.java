package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.atomic.AtomicUpdates;
import io.writeguard.deadline.Deadlines;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockHandle;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.path.FieldPath;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Second review of the hand-back (9c87638): across hand-backs (short own deadlines, a
 * competing writer, a lock taken by another holder now and then), each caller gets exactly one
 * terminal event, never more attempts than {@code maxAttempts} in all, and each success is
 * written exactly once, each failure that wrote nothing not at all.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class HandBack2TotalsReviewTest {
  private static final int MAX_ATTEMPTS = 3;
  private final MongoCollection<Document> real =
      TestMongo.freshDatabase("HandBack2Totals").getCollection("docs");
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  /** Terminal events and the highest attempt number told. */
  static final class Counts implements WriteGuardListener {
    final AtomicInteger terminal = new AtomicInteger();
    final AtomicInteger maxAttempt = new AtomicInteger();

    @Override
    public void onAttempt(OperationScope scope, Object key, int attempt) {
      maxAttempt.accumulateAndGet(attempt, Math::max);
    }

    @Override
    public void onSuccess(OperationScope scope, Object key, int attempts, Duration elapsed) {
      terminal.incrementAndGet();
      maxAttempt.accumulateAndGet(attempts, Math::max);
    }

    @Override
    public void onExhausted(OperationScope scope, Object key, int attempts, Duration elapsed) {
      terminal.incrementAndGet();
      maxAttempt.accumulateAndGet(attempts, Math::max);
    }

    @Override
    public void onFailure(OperationScope scope, Object key, Throwable error) {
      terminal.incrementAndGet();
    }
  }

  private static RetryPolicy policy() {
    return RetryPolicy.builder().maxAttempts(MAX_ATTEMPTS).deadline(Duration.ofSeconds(10))
        .backoff(Duration.ofMillis(1), Duration.ofMillis(8)).build();
  }

  private static Mutation increment(Document current, String mark) {
    return Mutation.update(Updates.combine(
        Updates.set("n", current.getLong("n") + 1), Updates.push("log", mark)));
  }

  @Test
  void versionedUpdater() throws Exception {
    Counts counts = new Counts();
    VersionedUpdater updater = VersionedUpdater.builder(real).retryPolicy(policy())
        .maxBatchSize(3).listener(counts).build();
    run("v", counts, (id, m) -> updater.update(id, m), null);
  }

  @Test
  void lockedUpdater() throws Exception {
    Counts counts = new Counts();
    LocalLockService locks = LocalLockService.create();
    LockedUpdater updater = LockedUpdater.builder(real, locks).retryPolicy(policy())
        .lockWait(Duration.ofMillis(300)).maxBatchSize(3).listener(counts).build();
    run("l", counts, (id, m) -> updater.update(id, m), locks);
  }

  private void run(String id, Counts counts, BiFunction<String, Mutator, UpdateOutcome> update,
      LocalLockService locks) throws Exception {
    VersionedInsert.insertOne(real, VersionPolicy.defaults(),
        new Document("_id", id).append("n", 0L).append("log", List.of()));
    AtomicUpdates.Versioned atomic = AtomicUpdates.versioned(VersionPolicy.defaults());
    AtomicBoolean competing = new AtomicBoolean(true);
    Future<?> competitor = pool.submit(() -> {
      Random random = new Random(42);
      for (int n = 0; competing.get() && n < 3000; n++) {
        real.updateOne(eq("_id", id), atomic.raising(
            AtomicUpdates.push(FieldPath.of("log"), "competitor")));
        if (locks != null && random.nextInt(8) == 0) {
          try (LockHandle h = locks.acquire("docs:" + id, Duration.ofSeconds(5))) {
            Thread.sleep(random.nextInt(60));
          }
        }
        Thread.sleep(2);
      }
      return null;
    });
    int threads = 6;
    int each = 25;
    List<Future<List<String[]>>> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      workers.add(pool.submit(() -> {
        List<String[]> outcomes = new ArrayList<>();
        Random random = new Random(thread);
        for (int i = 0; i < each; i++) {
          String mark = thread + "-" + i;
          Duration own = Duration.ofMillis(random.nextBoolean() ? 10 + random.nextInt(90) : 5000);
          String outcome;
          int attempts = 0;
          try {
            UpdateOutcome o = Deadlines.within(own,
                () -> update.apply(id, current -> increment(current, mark)));
            outcome = o.written() ? "written" : "none";
            attempts = o.attempts();
          } catch (WriteOutcomeUnknownException e) {
            outcome = "unknown";
          } catch (RetriesExhaustedException e) {
            outcome = "exhausted";
            attempts = e.attempts();
          } catch (RuntimeException e) {
            outcome = "failed " + e.getClass().getSimpleName();
          }
          outcomes.add(new String[] {mark, outcome, Integer.toString(attempts)});
        }
        return outcomes;
      }));
    }
    List<String[]> all = new ArrayList<>();
    try {
      for (Future<List<String[]>> w : workers) {
        all.addAll(w.get(150, TimeUnit.SECONDS));
      }
    } finally {
      competing.set(false);
    }
    competitor.get(60, TimeUnit.SECONDS);

    List<String> log = real.find(eq("_id", id)).first().getList("log", String.class);
    Map<String, Long> times = new HashMap<>();
    log.forEach(m -> times.merge(m, 1L, Long::sum));
    assertThat(all).hasSize(threads * each);
    for (String[] o : all) {
      long written = times.getOrDefault(o[0], 0L);
      assertThat(Integer.parseInt(o[2])).as("%s answered %s", o[0], o[1])
          .isLessThanOrEqualTo(MAX_ATTEMPTS);
      if (o[1].equals("written")) {
        assertThat(written).as("%s answered %s", o[0], o[1]).isEqualTo(1);
      } else if (o[1].equals("unknown")) {
        assertThat(written).as("%s answered %s", o[0], o[1]).isLessThanOrEqualTo(1);
      } else {
        assertThat(written).as("%s answered %s", o[0], o[1]).isZero();
      }
    }
    assertThat(counts.terminal.get()).as("one terminal event per call").isEqualTo(threads * each);
    assertThat(counts.maxAttempt.get()).isLessThanOrEqualTo(MAX_ATTEMPTS);
    long n = real.find(eq("_id", id)).first().getLong("n");
    assertThat(n).isEqualTo(log.stream().filter(m -> !m.equals("competitor")).count());
  }
}
