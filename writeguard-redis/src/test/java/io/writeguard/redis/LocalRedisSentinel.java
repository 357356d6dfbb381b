package io.writeguard.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Sentinel set-up on 127.0.0.1 for tests: one master, one replica and one Sentinel
 * (quorum 1) watching them as {@value #MASTER_NAME}, with {@code down-after-milliseconds} 1000
 * so a killed master is failed over in a few seconds. Closing kills every process.
 */
final class LocalRedisSentinel implements AutoCloseable {
  static final String MASTER_NAME = "wgmaster";
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final List<RedisProcess> processes = new ArrayList<>();
  private RedisProcess master;
  private RedisProcess replica;
  private RedisProcess sentinel;

  private LocalRedisSentinel() {}

  static LocalRedisSentinel start() {
    RedisProcess.assumeInstalled();
    LocalRedisSentinel set = new LocalRedisSentinel();
    try {
      set.master = set.add(RedisProcess.start("master"));
      set.replica = set.add(RedisProcess.start("replica", "--replicaof", "127.0.0.1",
          Integer.toString(set.master.port())));
      set.replica.awaitCli(READY_TIMEOUT, info -> info.contains("master_link_status:up"), "INFO", "replication");
      set.sentinel = set.add(RedisProcess.startSentinel(
          "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + set.master.port() + " 1",
          "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
          "sentinel failover-timeout " + MASTER_NAME + " 10000",
          "sentinel parallel-syncs " + MASTER_NAME + " 1"));
      // The Sentinel finds the replica through the master's INFO; only then can it fail over.
      set.sentinel.awaitCli(READY_TIMEOUT, out -> out.contains(Integer.toString(set.replica.port())),
          "SENTINEL", "REPLICAS", MASTER_NAME);
      return set;
    } catch (RuntimeException | AssertionError e) {
      set.close();
      throw e;
    }
  }

  private RedisProcess add(RedisProcess process) {
    processes.add(process);
    return process;
  }

  /** {@code redis-sentinel://127.0.0.1:<port>#wgmaster}, for {@link RedisLockService.Builder#uri}. */
  String uri() {
    return "redis-sentinel://" + sentinel.address() + "#" + MASTER_NAME;
  }

  RedisProcess master() {
    return master;
  }

  RedisProcess replica() {
    return replica;
  }

  /** Waits until the Sentinel names the replica as master and the replica knows it. */
  void awaitReplicaPromoted(Duration timeout) {
    sentinel.awaitCli(timeout, out -> out.contains(Integer.toString(replica.port())),
        "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
    replica.awaitCli(timeout, role -> role.startsWith("master"), "ROLE");
  }

  /** Makes the master go on without its replica ({@link RedisProcess#cutOff}). */
  void cutReplication() {
    master.cutOff(replica);
  }

  @Override
  public void close() {
    for (int i = processes.size() - 1; i >= 0; i--) {
      processes.get(i).close();
    }
  }
}
