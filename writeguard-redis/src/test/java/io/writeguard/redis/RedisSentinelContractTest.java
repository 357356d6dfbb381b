package io.writeguard.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The shared lock contract through a real Sentinel ({@code redis-sentinel://} URI, Debian's
 * redis-server started here): the client asks the Sentinel for the master and locks there.
 */
class RedisSentinelContractTest extends RedisLockContract {
  private static final String PREFIX = "wgtest:sentinel:";
  private static LocalRedisSentinel sentinel;
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> redis;

  @BeforeAll
  static void startSentinel() {
    sentinel = LocalRedisSentinel.start();
    client = RedisClient.create(sentinel.uri());
    redis = client.connect();
  }

  @AfterAll
  static void stopSentinel() {
    if (redis != null) {
      redis.close();
      client.shutdown();
    }
    if (sentinel != null) {
      sentinel.close();
    }
  }

  @Override
  protected RedisLockService.Builder connected() {
    return RedisLockService.builder()
        .uri(sentinel.uri())
        .keyPrefix(PREFIX);
  }

  @Override
  protected void simulateTakeover(String key) {
    takeOver(redis.sync(), PREFIX, key);
  }
}
