package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.lock.LocalLockService;
import io.writeguard.testing.Concurrently;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Group commit (on, the default) beside a writer that does not use WriteGuard and never raises
 * the version: sixteen threads add one to {@code n} through the updater (their mutators never
 * read it), while the foreign writer alternates a plain {@code $push} of its own marks and a
 * plain {@code $inc} of the same {@code n}. Exact accounting: {@code n} is every acknowledged
 * increment of both, every acknowledged mark is there once, and (optimistic) the version
 * counts exactly the updater's writes.
 */
class ForeignWritersStressTest {
  private static final int THREADS = 16;
  private static final int PER_THREAD = 60;

  private final MongoCollection<Document> docs =
      TestMongo.freshDatabase("ForeignStress").getCollection("docs");

  private static RetryPolicy patient() {
    return RetryPolicy.builder().maxAttempts(100_000).deadline(Duration.ofSeconds(90))
        .backoff(Duration.ofMillis(1), Duration.ofMillis(10)).build();
  }

  @Test
  void versionedUpdaterKeepsEveryForeignWrite() throws Exception {
    VersionedUpdater updater = VersionedUpdater.builder(docs).retryPolicy(patient()).build();
    run("versioned", true,
        (id, i) -> updater.update(id, current -> Mutation.update(Updates.inc("n", 1L))));
  }

  @Test
  void lockedUpdaterKeepsEveryForeignWrite() throws Exception {
    LockedUpdater updater = LockedUpdater.builder(docs, LocalLockService.create())
        .retryPolicy(patient()).build();
    run("locked", false,
        (id, i) -> updater.update(id, current -> Mutation.update(Updates.inc("n", 1L))));
  }

  /**
   * @param versionCountsWrites true: the version is exactly the number of guarded writes (a
   *     lock's claims raise it too)
   */
  private void run(String id, boolean versionCountsWrites,
      BiConsumer<String, Integer> guardedIncrement) throws Exception {
    VersionedInsert.insertOne(docs, VersionPolicy.defaults(),
        new Document("_id", id).append("n", 0L).append("legacy", List.of()));
    AtomicBoolean guardedDone = new AtomicBoolean();
    AtomicLong foreignIncs = new AtomicLong();
    AtomicLong foreignPushes = new AtomicLong();
    AtomicLong guarded = new AtomicLong();
    Concurrently.run(THREADS + 1, Duration.ofSeconds(120), thread -> {
      if (thread == THREADS) {
        // At least 200 foreign writes, and on until the guarded writers are done.
        for (int k = 0; k < 200 || !guardedDone.get(); k++) {
          if (k % 2 == 0) {
            docs.updateOne(eq("_id", id), Updates.push("legacy", k));
            foreignPushes.incrementAndGet();
          } else {
            docs.updateOne(eq("_id", id), Updates.inc("n", 1L));
            foreignIncs.incrementAndGet();
          }
        }
        return;
      }
      for (int i = 0; i < PER_THREAD; i++) {
        guardedIncrement.accept(id, i);
        if (guarded.incrementAndGet() == (long) THREADS * PER_THREAD) {
          guardedDone.set(true);
        }
      }
    });
    Document stored = docs.find(eq("_id", id)).first();
    System.out.printf("ForeignWritersStressTest %s: %d guarded and %d foreign $inc acknowledged,"
        + " n = %d; %d foreign $push acknowledged, %d stored%n", id, guarded.get(),
        foreignIncs.get(), stored.getLong("n"), foreignPushes.get(),
        stored.getList("legacy", Integer.class).size());
    List<Integer> legacy = stored.getList("legacy", Integer.class);
    Set<Integer> expectedMarks = new HashSet<>();
    for (int k = 0; k < foreignIncs.get() + foreignPushes.get(); k += 2) {
      expectedMarks.add(k);
    }
    assertThat(legacy).hasSize((int) foreignPushes.get());
    assertThat(new HashSet<>(legacy)).isEqualTo(expectedMarks);
    assertThat(stored.getLong("n")).isEqualTo(guarded.get() + foreignIncs.get());
    if (versionCountsWrites) {
      assertThat(stored.getLong("version")).isEqualTo((long) THREADS * PER_THREAD);
    }
  }
}
