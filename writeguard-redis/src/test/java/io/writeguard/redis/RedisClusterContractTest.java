package io.writeguard.redis;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The shared lock contract on a real 3-master Redis Cluster (Debian's redis-server, started
 * here), through {@link RedisLockService.Builder#clusterClient}: every script runs on the master
 * of its key's slot, and release messages cross nodes (the pub/sub connection is to one node).
 */
class RedisClusterContractTest extends RedisLockContract {
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
  protected RedisLockService.Builder connected() {
    return RedisLockService.builder()
        .clusterClient(client)
        .keyPrefix(PREFIX);
  }

  @Override
  protected void simulateTakeover(String key) {
    takeOver(redis.sync(), PREFIX, key);
  }
}
