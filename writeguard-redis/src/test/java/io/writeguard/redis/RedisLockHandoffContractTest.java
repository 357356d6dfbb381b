package io.writeguard.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The shared lock contract again, with local hand-off on ({@code handoffBatch(32)}): holders of
 * one process pass the Redis lease on, and everything the contract promises still holds.
 */
class RedisLockHandoffContractTest extends RedisLockContract {
  private static final String PREFIX = "wgtest:handoff-contract:";
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
        .handoffBatch(32);
  }

  @Override
  protected void simulateTakeover(String key) {
    takeOver(redis.sync(), PREFIX, key);
  }
}
