package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.ReadPreference;
import com.mongodb.client.MongoCollection;
import io.writeguard.testing.TestMongo;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Where {@link MongoStore} reads the collection's indexes from. They decide which callers of a
 * group-commit round may merge and, after a merged write, which callers are told their outcome
 * is unknown; a secondary that has not yet applied an index the primary enforces would answer
 * without it, and a caller its lone update would have refused would be told written.
 */
class WriteConstraintsReadTest {

  @Test
  void theIndexesAreReadFromThePrimaryWhateverTheCollectionsReadPreference() {
    MongoCollection<Document> docs = TestMongo.freshDatabase("IndexReadPrimary")
        .getCollection("docs").withReadPreference(ReadPreference.secondaryPreferred());
    docs.insertOne(new Document("_id", "d"));
    List<ReadPreference> seen = new CopyOnWriteArrayList<>();
    MongoStore store = new MongoStore(recording(docs, seen), () -> 0L);
    store.constraints();
    store.freshConstraints();
    assertThat(seen).as("the read preference of each listIndexes").hasSize(2)
        .allSatisfy(p -> assertThat(p).isEqualTo(ReadPreference.primary()));
  }

  @Test
  void aLoneUpdateReadsNoIndexesAndAMergedRoundReadsThemBeforeAndAfterItsWrite()
      throws Exception {
    MongoCollection<Document> docs = TestMongo.freshDatabase("IndexReadCost")
        .getCollection("docs");
    docs.insertOne(new Document("_id", "d").append("a", 0).append("b", 0)
        .append("version", 0L));
    List<ReadPreference> seen = new CopyOnWriteArrayList<>();
    MongoStore store = new MongoStore(recording(docs, seen), () -> 0L);
    VersionedUpdater updater = new VersionedUpdater.Builder(store).build();
    updater.updateOne("d", c -> Mutation.update(com.mongodb.client.model.Updates.set("a", 1)));
    assertThat(seen).as("a lone update sends no listIndexes").isEmpty();

    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newCachedThreadPool();
    try {
      LockedTesting.HeldBatch held = new LockedTesting.HeldBatch(pool,
          m -> updater.updateOne("d", m), () -> updater.waiting("d"), c -> Mutation.none());
      var first = held.queue(c -> Mutation.update(com.mongodb.client.model.Updates.set("a", 2)));
      var second = held.queue(c -> Mutation.update(
          com.mongodb.client.model.Updates.set("b", 2)));
      held.release();
      assertThat(first.get(60, java.util.concurrent.TimeUnit.SECONDS).written()).isTrue();
      assertThat(second.get(60, java.util.concurrent.TimeUnit.SECONDS).written()).isTrue();
    } finally {
      pool.shutdownNow();
    }
    assertThat(docs.find().first().getLong("version")).as("merged: one write of two")
        .isEqualTo(3L);
    assertThat(seen).as("read when the second writer joined, and after the merged write")
        .hasSize(2);
  }

  /**
   * {@code real}, and every collection derived from it, recording the read preference of the
   * collection each {@code listIndexes} is called on.
   */
  @SuppressWarnings("unchecked")
  private static <T> MongoCollection<T> recording(MongoCollection<T> real,
      List<ReadPreference> seen) {
    return (MongoCollection<T>) Proxy.newProxyInstance(MongoCollection.class.getClassLoader(),
        new Class<?>[] {MongoCollection.class}, (proxy, method, args) -> {
          if (method.getName().equals("listIndexes")) {
            seen.add(real.getReadPreference());
          }
          Object result;
          try {
            result = method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          return result instanceof MongoCollection<?> derived
              ? recording(derived, seen) : result;
        });
  }
}
