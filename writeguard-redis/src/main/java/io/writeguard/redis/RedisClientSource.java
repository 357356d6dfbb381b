package io.writeguard.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.writeguard.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a lock service's Redis client comes from: one the caller gives (standalone or Sentinel,
 * or Cluster), which the service never shuts down, or one it makes from a URI or cluster seeds
 * and owns. Apart from the service because it is neither the engine's concern nor the store's:
 * it only checks that exactly one source is named, parses URIs naming the bad one, and sets
 * the options an owned client needs (refuse commands while disconnected, follow a cluster
 * failover). Immutable.
 */
final class RedisClientSource {
  private final AbstractRedisClient given;
  private final RedisURI uri;
  private final List<RedisURI> seeds;

  private RedisClientSource(AbstractRedisClient given, RedisURI uri, List<RedisURI> seeds) {
    this.given = given;
    this.uri = uri;
    this.seeds = seeds;
  }

  /**
   * The one source named among a client, a URI, a cluster client or cluster seed URIs.
   *
   * @throws IllegalArgumentException unless exactly one is set, or naming a URI that does not
   *     parse
   */
  static RedisClientSource of(RedisClient client, String uri, RedisClusterClient clusterClient,
      List<String> clusterUris) {
    List<String> set = new ArrayList<>();
    if (client != null) {
      set.add("client");
    }
    if (uri != null) {
      set.add("uri");
    }
    if (clusterClient != null) {
      set.add("clusterClient");
    }
    if (clusterUris != null) {
      set.add("clusterUris");
    }
    if (set.size() != 1) {
      throw new IllegalArgumentException("exactly one of client, uri, clusterClient or clusterUris"
          + " must be set, was " + (set.isEmpty() ? "none" : String.join(" and ", set)));
    }
    RedisURI redisUri = uri == null ? null : parseUri("uri", uri);
    List<RedisURI> seeds = clusterUris == null ? null : parseClusterUris(clusterUris);
    return new RedisClientSource(client != null ? client : clusterClient, redisUri, seeds);
  }

  /** The caller's client, or null when the service makes its own ({@link #open()}). */
  AbstractRedisClient given() {
    return given;
  }

  /** A new client for the URI or the cluster seeds, owned by whoever calls this. */
  AbstractRedisClient open() {
    return seeds == null ? ownClient(uri) : ownClusterClient(seeds);
  }

  private static RedisClient ownClient(RedisURI redisUri) {
    RedisClient own = RedisClient.create(redisUri);
    // Fail fast while disconnected instead of queueing commands: "Redis down" is a failure.
    own.setOptions(ClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .build());
    return own;
  }

  private static RedisClusterClient ownClusterClient(List<RedisURI> seeds) {
    RedisClusterClient own = RedisClusterClient.create(seeds);
    own.setOptions(ClusterClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        // A failover must be noticed: a dead master's connection only reconnects in vain.
        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
            .enableAllAdaptiveRefreshTriggers()
            .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
            .enablePeriodicRefresh(Duration.ofSeconds(10))
            .build())
        .build());
    return own;
  }

  private static List<RedisURI> parseClusterUris(List<String> uris) {
    if (uris.isEmpty()) {
      throw new IllegalArgumentException("clusterUris must name at least one node, was empty");
    }
    List<RedisURI> parsed = new ArrayList<>();
    for (int i = 0; i < uris.size(); i++) {
      String name = "clusterUris[" + i + "]";
      RedisURI one = parseUri(name, uris.get(i));
      if (!one.getSentinels().isEmpty()) {
        throw new IllegalArgumentException(name + " must be a cluster node (redis://host:port),"
            + " not a Sentinel URI, was " + Checks.quote(uris.get(i)));
      }
      parsed.add(one);
    }
    return parsed;
  }

  private static RedisURI parseUri(String setting, String uri) {
    if (uri == null) {
      throw new IllegalArgumentException(setting + " must not be null");
    }
    try {
      return RedisURI.create(uri);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(setting + " is not a Redis URI, was " + Checks.quote(uri)
          + ": " + e.getMessage(), e);
    }
  }
}
