package io.writeguard.redis;

import com.mongodb.client.MongoCollection;
import io.lettuce.core.RedisClient;
import io.writeguard.testing.MarkingWriters;
import io.writeguard.testing.TestMongo;
import io.writeguard.update.LockedUpdater;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
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
    MarkingWriters.runAndCheck(docs, List.of(LockedUpdater.builder(docs, service("node-a")).build(),
        LockedUpdater.builder(docs, service("node-b")).build()), 4, 25);
  }
}
