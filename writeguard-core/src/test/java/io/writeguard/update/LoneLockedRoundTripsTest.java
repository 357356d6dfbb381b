package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * A lone {@link LockedUpdater} call costs what the same lock used by hand costs: one lock
 * hand-off, one fenced read, one fenced write, one release; not one round trip more.
 */
class LoneLockedRoundTripsTest {
  private final List<String> sent = Collections.synchronizedList(new ArrayList<>());

  private final MongoClient client = TestMongo.newClient(b -> b.addCommandListener(
      new CommandListener() {
        @Override
        public void commandStarted(CommandStartedEvent event) {
          sent.add(event.getCommandName() + " " + event.getCommand()
              .getString(event.getCommandName(), new org.bson.BsonString("")).getValue());
        }
      }));

  @Test
  void aLoneLockedUpdateSendsNoMoreThanTheSameLockByHand() {
    MongoDatabase db = client.getDatabase(TestMongo.freshDatabase("LoneLocked").getName());
    MongoCollection<Document> docs = db.getCollection("docs");
    docs.insertOne(new Document("_id", 1).append("n", 0).append("version", 0L));
    try (MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "docs_locks").build()) {
      LockedUpdater updater = LockedUpdater.builder(docs, locks).build();
      FencedWriter writer = FencedWriter.of(docs);
      // warm both up (index creation, first lock document)
      updater.updateOne(1, d -> Mutation.update(new Document("$inc", new Document("n", 1))));
      byHand(locks, writer);

      sent.clear();
      updater.updateOne(1, d -> Mutation.update(new Document("$inc", new Document("n", 1))));
      List<String> library = List.copyOf(sent);
      sent.clear();
      byHand(locks, writer);
      List<String> hand = List.copyOf(sent);

      assertThat(library).as("LockedUpdater %s against by hand %s", library, hand)
          .hasSizeLessThanOrEqualTo(hand.size());
      assertThat(docs.find().first().getInteger("n")).isEqualTo(4);
    }
  }

  /**
   * A batch that releases while callers of its process are queued keeps the lease for the next
   * batch (a turn): two batches in a row take the lock once and release it once.
   */
  @Test
  void theNextBatchOfTheProcessHoldsTheLeaseWithoutTakingTheLockAgain() throws Exception {
    MongoDatabase db = client.getDatabase(TestMongo.freshDatabase("LockedTurn").getName());
    MongoCollection<Document> docs = db.getCollection("docs");
    docs.insertOne(new Document("_id", 1).append("n", 0).append("version", 0L));
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try (MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "docs_locks")
        .handoffSlice(Duration.ofSeconds(10)).build()) {
      LockedUpdater updater = LockedUpdater.builder(docs, locks).build();
      Mutator inc = d -> Mutation.update(new Document("$inc", new Document("n", 1)));
      updater.updateOne(1, inc); // warm up (index, first lock document)
      sent.clear();
      List<Future<UpdateOutcome>> others = new ArrayList<>();
      UpdateOutcome first = updater.updateOne(1, d -> {
        for (int i = others.size(); i < 3; i++) {
          others.add(pool.submit(() -> updater.updateOne(1, inc)));
        }
        LockedTesting.waitUntil(() -> updater.waiting(1) == 3);
        return inc.mutate(d);
      });
      for (Future<UpdateOutcome> f : others) {
        assertThat(f.get(10, TimeUnit.SECONDS).written()).isTrue();
      }
      assertThat(first.written()).isTrue();
      long lockCommands = sent.stream().filter(c -> c.equals("findAndModify docs_locks")).count();
      assertThat(lockCommands).as("one take and one release for both batches: %s", sent)
          .isEqualTo(2);
      assertThat(docs.find().first().getInteger("n")).isEqualTo(5);
    } finally {
      pool.shutdownNow();
    }
  }

  private static void byHand(MongoLeaseLockService locks, FencedWriter writer) {
    try (LockHandle lock = locks.acquire("docs:1", Duration.ofSeconds(5))) {
      Document read = writer.claim(lock, 1).orElseThrow();
      writer.updateOne(lock, 1, new Document("$set", new Document("n", read.getInteger("n") + 1)));
    }
  }
}
