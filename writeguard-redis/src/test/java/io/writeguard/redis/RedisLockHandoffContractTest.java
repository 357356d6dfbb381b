package io.writeguard.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockServiceContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The shared lock contract again, with local hand-off on ({@code handoffBatch(32)}): holders of
 * one process pass the Redis lease on, and everything the contract promises still holds.
 */
class RedisLockHandoffContractTest extends LockServiceContract {
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
  protected LockService create(LeaseConfig config) {
    RedisLockService.Builder builder = RedisLockService.builder()
        .client(client)
        .keyPrefix(PREFIX)
        .handoffBatch(32)
        .lease(config.lease())
        .listener(config.listener())
        .ticker(config.ticker());
    if (config.renewInterval() == null) {
      builder.withoutWatchdog();
    } else {
      builder.renewInterval(config.renewInterval());
    }
    return builder.build();
  }

  @Override
  protected void simulateTakeover(String key) {
    redis.sync().hset(PREFIX + "{" + key + "}", "o", "intruder:1");
    redis.sync().pexpire(PREFIX + "{" + key + "}", 60_000);
  }
}
