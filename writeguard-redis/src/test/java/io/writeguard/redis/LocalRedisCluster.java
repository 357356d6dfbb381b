package io.writeguard.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Redis Cluster on 127.0.0.1 for tests: 3 masters and 3 replicas (one per master),
 * created with {@code redis-cli --cluster create ... --cluster-replicas 1 --cluster-yes}, with
 * a short {@code cluster-node-timeout} so a killed master is failed over in seconds. Replicas
 * may fail over whatever their data age ({@code cluster-replica-validity-factor 0}). Closing
 * kills every node.
 */
final class LocalRedisCluster implements AutoCloseable {
  static final Duration NODE_TIMEOUT = Duration.ofMillis(2000);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final List<RedisProcess> nodes = new ArrayList<>();

  private LocalRedisCluster() {}

  static LocalRedisCluster start() {
    RedisProcess.assumeInstalled();
    LocalRedisCluster cluster = new LocalRedisCluster();
    try {
      for (int i = 0; i < 6; i++) {
        cluster.nodes.add(RedisProcess.start("cluster" + i, "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-port", "0", // a free port, picked by RedisProcess.start
            "--cluster-node-timeout", Long.toString(NODE_TIMEOUT.toMillis()),
            "--cluster-replica-validity-factor", "0"));
      }
      List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
      cluster.nodes.forEach(n -> create.add(n.address()));
      create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
      String out = RedisProcess.run(create, READY_TIMEOUT);
      if (!out.contains("All 16384 slots covered")) {
        throw new AssertionError("redis-cli --cluster create failed: " + out);
      }
      for (RedisProcess node : cluster.nodes) {
        node.awaitCli(READY_TIMEOUT, info -> info.contains("cluster_state:ok"), "CLUSTER", "INFO");
      }
      for (RedisProcess node : cluster.nodes) {
        if (node.cli("ROLE").startsWith("slave")) {
          node.awaitCli(READY_TIMEOUT, info -> info.contains("master_link_status:up"), "INFO", "replication");
        }
      }
      return cluster;
    } catch (RuntimeException | AssertionError e) {
      cluster.close();
      throw e;
    }
  }

  /** Seed URIs for {@link RedisLockService.Builder#clusterUris}. */
  String[] uris() {
    return nodes.stream().map(RedisProcess::uri).toArray(String[]::new);
  }

  /** The node that is master of the slot of this Redis key now. */
  RedisProcess masterOf(String redisKey) {
    String slot = nodes.get(0).cli("CLUSTER", "KEYSLOT", redisKey).trim();
    for (RedisProcess node : nodes) {
      if (node.alive() && node.cli("ROLE").startsWith("master") && ownsSlot(node, Integer.parseInt(slot))) {
        return node;
      }
    }
    throw new AssertionError("no live master owns slot " + slot + " of " + redisKey);
  }

  /** The replica of {@code master}. */
  RedisProcess replicaOf(RedisProcess master) {
    for (RedisProcess node : nodes) {
      if (node != master && node.alive()
          && node.cli("INFO", "replication").contains("master_port:" + master.port())) {
        return node;
      }
    }
    throw new AssertionError("no replica of " + master.address());
  }

  /** Makes {@code master} go on without its replica ({@link RedisProcess#cutOff}). */
  void cutReplication(RedisProcess master, RedisProcess replica) {
    master.cutOff(replica);
  }

  /** Waits until {@code replica} was promoted and every live node sees the cluster as ok. */
  void awaitPromoted(RedisProcess replica, Duration timeout) {
    replica.awaitCli(timeout, role -> role.startsWith("master"), "ROLE");
    for (RedisProcess node : nodes) {
      if (node.alive()) {
        node.awaitCli(timeout, info -> info.contains("cluster_state:ok"), "CLUSTER", "INFO");
      }
    }
  }

  private static boolean ownsSlot(RedisProcess node, int slot) {
    // CLUSTER NODES: "<id> <addr> myself,master - 0 0 1 connected 0-5460"
    for (String line : node.cli("CLUSTER", "NODES").split("\n")) {
      if (!line.contains("myself")) {
        continue;
      }
      String[] fields = line.trim().split(" ");
      for (int i = 8; i < fields.length; i++) {
        String[] range = fields[i].split("-");
        if (range[0].startsWith("[")) {
          continue; // a slot being migrated
        }
        int from = Integer.parseInt(range[0]);
        int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
        if (slot >= from && slot <= to) {
          return true;
        }
      }
    }
    return false;
  }

  @Override
  public void close() {
    nodes.forEach(RedisProcess::close);
  }
}
