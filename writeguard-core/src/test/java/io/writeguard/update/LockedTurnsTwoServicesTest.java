package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.lock.FencedWriter;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.lock.StaleLockException;
import io.writeguard.testing.MarkingWriters;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Review of turns through {@link LockedUpdater} with two lock services ("processes") on one
 * lock collection: group-commit batches close for a successor, leases pass from batch to
 * batch and between the services, and every acknowledged write is kept exactly once; a holder
 * of the turn before, paused after its checks, is refused by MongoDB's fence.
 */
class LockedTurnsTwoServicesTest {
  private final MongoDatabase db = TestMongo.freshDatabase("LockedTurnsTwo");
  private final MongoCollection<Document> docs = db.getCollection("docs");
  private final List<MongoLeaseLockService> services = new ArrayList<>();

  private MongoLeaseLockService service(String owner) {
    MongoLeaseLockService service = MongoLeaseLockService.builder(db, "locks").noCleanup()
        .owner(owner).build();
    services.add(service);
    return service;
  }

  @AfterEach
  void close() {
    services.forEach(MongoLeaseLockService::close);
  }

  @Test
  void twoServicesOfFourWritersEachKeepEveryAcknowledgedWriteOnce() throws Exception {
    MarkingWriters.runAndCheck(docs, List.of(LockedUpdater.builder(docs, service("node-a")).build(),
        LockedUpdater.builder(docs, service("node-b")).build()), 4, 25);
  }

  /**
   * The batch before hands its lease on (closeForSuccessor), the next holder writes with the
   * next token of the same lease; the earlier holder, paused after it checked its lock, then
   * writes: the fence in MongoDB's filter refuses it and the document keeps only the newer write.
   */
  @Test
  void aHolderPausedAcrossTheHandOverIsRefusedByTheFence() {
    docs.insertOne(new Document("_id", 2).append("n", 0));
    MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "locks").noCleanup()
        .owner("node-a").lease(Duration.ofSeconds(30)).handoffSlice(Duration.ofSeconds(10)).build();
    services.add(locks); // a turn long enough for this test's first, slow, round trips
    FencedWriter writer = FencedWriter.of(docs);
    LockHandle before = locks.acquire("docs:2", Duration.ofSeconds(5));
    writer.claim(before, 2).orElseThrow();
    LockHandle paused = LockedTesting.holderWith(before.token()); // as it saw itself: held
    before.closeForSuccessor();
    try (LockHandle next = locks.acquire("docs:2", Duration.ofSeconds(5))) {
      assertThat(next.token()).isEqualTo(before.token() + 1);
      writer.claim(next, 2).orElseThrow();
      writer.updateOne(next, 2, new Document("$inc", new Document("n", 1)));
    }
    assertThatThrownBy(() -> writer.updateOne(paused, 2, new Document("$inc", new Document("n", 10))))
        .isInstanceOf(StaleLockException.class);
    assertThat(docs.find().first().getInteger("n")).isEqualTo(1);
  }
}
