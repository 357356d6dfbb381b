package io.writeguard.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * The two connections a lock service opens on its client: one for the scripts, one for
 * release messages. The same code serves a standalone or Sentinel-managed server
 * ({@link RedisClient}) and Redis Cluster ({@link RedisClusterClient}):
 *
 * <ul>
 *   <li>scripts: a cluster connection sends each {@code EVALSHA} to the master of its key's
 *       slot (every script touches one key, and the key is hash-tagged), and follows
 *       {@code MOVED} after a failover or resharding;
 *   <li>release messages: classic {@code PUBLISH}, which a cluster forwards to every node, so
 *       the one pub/sub connection (to any node) hears every release. Sharded pub/sub
 *       ({@code SPUBLISH}, Redis 7.0) would keep the message inside the key's shard, but its
 *       subscriptions must move with the slot's master on every failover; the bounded re-check
 *       makes a lost message cost at most {@code fallbackRecheck}, not correctness.
 * </ul>
 *
 * Not thread-safe to make; the connections it holds are.
 */
record LockConnections(
    StatefulConnection<String, String> commands,
    RedisScriptingAsyncCommands<String, String> scripting,
    StatefulRedisPubSubConnection<String, String> pubSub) {

  /** Opens both connections; if the second fails, the first is closed again. */
  static LockConnections open(AbstractRedisClient client) {
    if (client instanceof RedisClusterClient cluster) {
      StatefulRedisClusterConnection<String, String> commands = cluster.connect(StringCodec.UTF8);
      try {
        return new LockConnections(commands, commands.async(), cluster.connectPubSub(StringCodec.UTF8));
      } catch (RuntimeException e) {
        commands.close();
        throw e;
      }
    }
    RedisClient standalone = (RedisClient) client;
    StatefulRedisConnection<String, String> commands = standalone.connect(StringCodec.UTF8);
    try {
      return new LockConnections(commands, commands.async(), standalone.connectPubSub(StringCodec.UTF8));
    } catch (RuntimeException e) {
      commands.close();
      throw e;
    }
  }
}
