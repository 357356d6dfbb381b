package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.lock.LockService;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;

/**
 * What the tests of nested updates across {@link LockedUpdater}s share: a fresh database with
 * two collections, one thread to nest on and a pool, what to close after each test, and the
 * documents they write ({@code n}, a {@code log} of marks, a version). The lock wait is short
 * enough that a nested update waiting for its own thread's lock ends in a lock timeout the
 * tests tell apart.
 */
abstract class NestedUpdatesFixture {
  static final Duration LOCK_WAIT = Duration.ofSeconds(3);
  final MongoDatabase db;
  final MongoCollection<Document> docs;
  final MongoCollection<Document> others;
  final ExecutorService one = Executors.newSingleThreadExecutor();
  final ExecutorService pool = Executors.newCachedThreadPool();
  final List<AutoCloseable> closing = new ArrayList<>();

  NestedUpdatesFixture(String databaseName) {
    this.db = TestMongo.freshDatabase(databaseName);
    this.docs = db.getCollection("docs");
    this.others = db.getCollection("others");
  }

  @AfterEach
  void stop() throws Exception {
    one.shutdownNow();
    pool.shutdownNow();
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  /** {@code locks}, closed after the test. */
  <L extends LockService> L closed(L locks) {
    closing.add(locks);
    return locks;
  }

  static LockedUpdater updater(MongoCollection<Document> c, LockService locks) {
    return LockedUpdater.builder(c, locks).lockWait(LOCK_WAIT).build();
  }

  static void insert(MongoCollection<Document> c, Object id) {
    c.insertOne(new Document("_id", id).append("n", 0L).append("log", List.of())
        .append("version", 0L));
  }

  static List<String> log(MongoCollection<Document> c, Object id) {
    return c.find(eq("_id", id)).first().getList("log", String.class);
  }

  /** {@code work} on the one thread, waited for at most 60 s. */
  <T> T onOneThread(Callable<T> work) throws Exception {
    return one.submit(work).get(60, TimeUnit.SECONDS);
  }
}
