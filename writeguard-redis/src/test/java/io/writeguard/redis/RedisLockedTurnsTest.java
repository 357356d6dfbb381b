package io.writeguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.lettuce.core.RedisClient;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedUpdater;
import io.writeguard.update.Mutation;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Review of turns through {@link LockedUpdater} on the Redis lock: two services ("processes")
 * on one key prefix, group-commit batches closing for a successor, the scripts' yields between
 * the two owners; every acknowledged write is kept exactly once, within a bounded time.
 */
class RedisLockedTurnsTest {
  private final RedisClient client = RedisClient.create(TestRedis.uri());
  private final String prefix = "wglturn:" + UUID.randomUUID().toString().substring(0, 8) + ":";
  private final List<RedisLockService> services = new ArrayList<>();

  private RedisLockService service(String owner) {
    RedisLockService service = RedisLockService.builder().client(client).keyPrefix(prefix)
        .owner(owner).build();
    services.add(service);
    return service;
  }

  @AfterEach
  void close() {
    services.forEach(RedisLockService::close);
    client.shutdown();
  }

  @Test
  void twoServicesOfFourWritersEachKeepEveryAcknowledgedWriteOnce() throws Exception {
    MongoCollection<Document> docs = TestMongo.freshDatabase("RedisLockedTurns").getCollection("docs");
    docs.insertOne(new Document("_id", 1).append("n", 0).append("log", List.of()));
    LockedUpdater a = LockedUpdater.builder(docs, service("node-a")).build();
    LockedUpdater b = LockedUpdater.builder(docs, service("node-b")).build();
    int perWriter = 25;
    ConcurrentLinkedQueue<String> acknowledged = new ConcurrentLinkedQueue<>();
    List<CompletableFuture<Void>> writers = new ArrayList<>();
    for (int w = 0; w < 8; w++) {
      LockedUpdater updater = w % 2 == 0 ? a : b;
      String writer = (w % 2 == 0 ? "a" : "b") + w;
      writers.add(CompletableFuture.runAsync(() -> {
        for (int i = 0; i < perWriter; i++) {
          String mark = writer + "-" + i;
          if (updater.updateOne(1, d -> Mutation.update(new Document("$inc", new Document("n", 1))
              .append("$push", new Document("log", mark)))).written()) {
            acknowledged.add(mark);
          }
        }
      }, command -> new Thread(command, "redis-turns-writer").start()));
    }
    CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
    Document doc = docs.find().first();
    assertThat(acknowledged).hasSize(8 * perWriter);
    assertThat(doc.getInteger("n")).isEqualTo(acknowledged.size());
    assertThat(doc.getList("log", String.class)).containsExactlyInAnyOrderElementsOf(acknowledged);
  }
}
