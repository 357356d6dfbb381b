package io.writeguard.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockServiceContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The shared lock contract through a real Sentinel ({@code redis-sentinel://} URI, Debian's
 * redis-server started here): the client asks the Sentinel for the master and locks there.
 */
class RedisSentinelContractTest extends LockServiceContract {
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
  protected LockService create(LeaseConfig config) {
    RedisLockService.Builder builder = RedisLockService.builder()
        .uri(sentinel.uri())
        .keyPrefix(PREFIX)
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
