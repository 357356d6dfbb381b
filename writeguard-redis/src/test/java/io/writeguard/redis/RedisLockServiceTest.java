package io.writeguard.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The shared lock contract, run against {@link RedisLockService} on the test Redis. */
class RedisLockServiceTest extends RedisLockContract {
  private static final String PREFIX = "wgtest:contract:";
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> redis;

  @BeforeAll
  static void connect() {
    client = RedisClient.create(TestRedis.uri());
    redis = client.connect();
  }

  @AfterAll
  static void disconnect() {
    redis.close();
    client.shutdown();
  }

  @Override
  protected RedisLockService.Builder connected() {
    return RedisLockService.builder()
        .client(client)
        .keyPrefix(PREFIX)
        .handoffBatch(1); // every holder takes the lock at Redis; the hand-off variant runs too
  }

  @Override
  protected void simulateTakeover(String key) {
    takeOver(redis.sync(), PREFIX, key);
  }
}
