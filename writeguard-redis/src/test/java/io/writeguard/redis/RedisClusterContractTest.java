package io.writeguard.redis;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.writeguard.lock.LockService;
import io.writeguard.lock.LockServiceContract;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The shared lock contract on a real 3-master Redis Cluster (Debian's redis-server, started
 * here), through {@link RedisLockService.Builder#clusterClient}: every script runs on the master
 * of its key's slot, and release messages cross nodes (the pub/sub connection is to one node).
 */
class RedisClusterContractTest extends LockServiceContract {
  private static final String PREFIX = "wgtest:cluster:";
  private static LocalRedisCluster cluster;
  private static RedisClusterClient client;
  private static StatefulRedisClusterConnection<String, String> redis;

  @BeforeAll
  static void startCluster() {
    cluster = LocalRedisCluster.start();
    client = RedisClusterClient.create(Arrays.stream(cluster.uris()).map(RedisURI::create).toList());
    redis = client.connect();
  }

  @AfterAll
  static void stopCluster() {
    if (redis != null) {
      redis.close();
      client.shutdown();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Override
  protected LockService create(LeaseConfig config) {
    RedisLockService.Builder builder = RedisLockService.builder()
        .clusterClient(client)
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
