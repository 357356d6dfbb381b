package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static io.writeguard.update.LockedTesting.holderWith;
import static io.writeguard.update.LockedTesting.waitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.PushOptions;
import com.mongodb.client.model.Updates;
import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LocalLockService;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedTesting.HeldBatch;
import io.writeguard.update.LockedTesting.ScriptedLocks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * LockedUpdater across the rounds of one batch: a newer holder claiming between two rounds, and
 * a combined write the server refuses. Interleavings its review tried that held.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockedUpdaterRoundsTest {
  private final com.mongodb.client.MongoDatabase db = TestMongo.freshDatabase("LockedRounds");
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  /**
   * A batch [b, c (not modelled), d]: round 1 writes b alone; then a newer holder claims the
   * document; round 2's claim is refused, c and d retake the lock. Every change exactly once.
   */
  @Test
  void aNewerHolderBetweenRoundsRetriesOnlyTheUnwrittenCallersEachOnce() throws Exception {
    MongoCollection<Document> real = db.getCollection("docs");
    real.insertOne(new Document("_id", "d").append("log", List.of()).append("version", 0L));
    long[] script = {5, 10, 30, 40, 50, 60};
    AtomicInteger next = new AtomicInteger();
    AtomicInteger successes = new AtomicInteger();
    FencedWriter newer = FencedWriter.of(real);
    WriteGuardListener listener = new WriteGuardListener() {
      @Override
      public void onSuccess(OperationScope scope, Object key, int attempts, Duration elapsed) {
        if (successes.incrementAndGet() == 2) { // b's: after round 1's write
          newer.claim(holderWith(20), "d");
        }
      }
    };
    LockedUpdater updater = LockedUpdater.builder(real,
        new ScriptedLocks(() -> script[next.getAndIncrement()])).listener(listener).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("d", m),
        () -> updater.waiting("d"), c -> Mutation.update(Updates.push("log", "first")));
    Future<UpdateOutcome> b = pool.submit(() -> updater.update("d",
        c -> Mutation.update(Updates.push("log", "b"))));
    waitUntil(() -> updater.waiting("d") == 1);
    Future<UpdateOutcome> c = pool.submit(() -> updater.update("d",
        cur -> Mutation.update(Updates.pushEach("log", List.of("c"),
            new PushOptions().position(1000)))));
    waitUntil(() -> updater.waiting("d") == 2);
    Future<UpdateOutcome> d = pool.submit(() -> updater.update("d",
        cur -> Mutation.update(Updates.push("log", "d"))));
    waitUntil(() -> updater.waiting("d") == 3);
    held.release();

    assertThat(held.first.get(20, TimeUnit.SECONDS).written()).isTrue();
    assertThat(b.get(20, TimeUnit.SECONDS).fencedRejections()).isZero();
    assertThat(c.get(20, TimeUnit.SECONDS).fencedRejections()).isEqualTo(1);
    assertThat(d.get(20, TimeUnit.SECONDS).fencedRejections()).isEqualTo(1);
    assertThat(real.find(eq("_id", "d")).first().getList("log", String.class))
        .containsExactlyInAnyOrder("first", "b", "c", "d");
  }

  /** A combined write refused (duplicate key): each writer alone, only the bad one fails. */
  @Test
  void aCombinedWriteRefusedAsDuplicateKeyUnderTheLockFailsOnlyTheBadCaller() throws Exception {
    MongoCollection<Document> real = db.getCollection("valid");
    real.createIndex(new Document("tag", 1), new com.mongodb.client.model.IndexOptions()
        .unique(true).sparse(true));
    real.insertOne(new Document("_id", "other").append("tag", "taken"));
    real.insertOne(new Document("_id", "d").append("log", List.of()).append("version", 0L));
    LockedUpdater updater = LockedUpdater.builder(real, LocalLockService.create()).build();
    HeldBatch held = new HeldBatch(pool, m -> updater.update("d", m),
        () -> updater.waiting("d"), c -> Mutation.update(Updates.push("log", "first")));
    List<Future<UpdateOutcome>> fs = new ArrayList<>();
    for (String m : List.of("b", "bad", "d")) {
      int before = updater.waiting("d");
      fs.add(pool.submit(() -> updater.update("d", c -> Mutation.update(m.equals("bad")
          ? Updates.combine(Updates.push("log", m), Updates.set("tag", "taken"))
          : Updates.push("log", m)))));
      waitUntil(() -> updater.waiting("d") == before + 1);
    }
    held.release();
    assertThat(fs.get(0).get(20, TimeUnit.SECONDS).written()).isTrue();
    try {
      fs.get(1).get(20, TimeUnit.SECONDS);
      throw new AssertionError("bad was written");
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(DuplicateKeyWriteException.class);
    }
    assertThat(fs.get(2).get(20, TimeUnit.SECONDS).written()).isTrue();
    assertThat(real.find(eq("_id", "d")).first().getList("log", String.class))
        .containsExactly("first", "b", "d");
  }
}
