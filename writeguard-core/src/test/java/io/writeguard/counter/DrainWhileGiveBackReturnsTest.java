package io.writeguard.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoSocketOpenException;
import com.mongodb.MongoWriteException;
import com.mongodb.ServerAddress;
import com.mongodb.WriteError;
import com.mongodb.client.MongoCollection;
import io.writeguard.lock.LocalLockService;
import io.writeguard.lock.LockService;
import io.writeguard.testing.TestMongo;
import io.writeguard.testing.WriteHook;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Review of issue 35: the docs said that with the counter's lock "insufficient" is decided only
 * by the one drain holding it, after every earlier drain has finished or given back. A drain
 * whose give-back goes on in the background releases the lock before the amount is back, so
 * until it lands a decrement the whole balance covers may be refused (the docs now say so,
 * and that its caller was told the amount is returning). Shards [3, 3]: drain A takes 3 from
 * shard 0, its take of shard 1 is refused, and the give-back of shard 0's 3 goes on in the
 * background (held). Then B decrements 4 of the 6: refused while the 3 is on its way, taken
 * once it is back. Keeping the lock until the background is done needs a lock that another
 * thread may release; not done.
 */
class DrainWhileGiveBackReturnsTest {
  @Test
  void aDecrementWhileAnotherDrainsGiveBackIsStillReturningMayBeRefusedUntilItLands()
      throws Exception {
    MongoCollection<Document> collection =
        TestMongo.freshDatabase("DrainWhileReturning").getCollection("counters");
    String id = "c";
    for (int i = 0; i < 2; i++) {
      collection.insertOne(new Document("_id", id + "#" + i).append("counter", id)
          .append("shard", i).append("balance", 3L));
    }
    CountDownLatch bChecked = new CountDownLatch(1);
    CountDownLatch returned = new CountDownLatch(1);
    WriteHook hook = new WriteHook((n, send) -> {
      if (Thread.currentThread().getName().startsWith("writeguard-must-finish")) {
        assertThat(bChecked.await(10, TimeUnit.SECONDS)).isTrue();
        try {
          return send.call();
        } finally {
          returned.countDown();
        }
      }
      if (n == 3) { // A's take of shard 1 (write 1 is the single-shard try), refused
        throw new MongoWriteException(new WriteError(14031, "injected: out of disk space",
            new BsonDocument()), new ServerAddress(), List.of());
      }
      if (n >= 4 && n <= 6) { // the sends of A's give-back A waits for
        throw new MongoSocketOpenException("injected: no connection", new ServerAddress());
      }
      return send.call();
    });
    LockService locks = LocalLockService.create();
    ShardedCounter a = ShardedCounter.builder(hook.wrap(collection))
        .layout(CounterLayout.DOCUMENTS).shards(2).lockService(locks).build();
    ShardedCounter b = ShardedCounter.builder(collection)
        .layout(CounterLayout.DOCUMENTS).shards(2).lockService(locks).build();
    try {
      assertThatThrownBy(() -> a.decrement(id, 5))
          .isInstanceOfSatisfying(StrandedBalanceException.class,
              e -> assertThat(e.returningByShard()).isEqualTo(Map.of(0, 3L)));

      assertThatThrownBy(() -> b.decrement(id, 4))
          .as("refused while A's 3 is still on its way back")
          .isInstanceOf(InsufficientBalanceException.class);
      assertThat(b.shardValues(id)).containsExactly(0L, 3L);
      bChecked.countDown();
      assertThat(returned.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(b.decrement(id, 4).amount()).as("taken once it is back").isEqualTo(4);
      assertThat(b.total(id)).isEqualTo(2);
    } finally {
      bChecked.countDown();
    }
  }
}
