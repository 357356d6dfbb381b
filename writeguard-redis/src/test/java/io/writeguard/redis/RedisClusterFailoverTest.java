package io.writeguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import io.writeguard.testing.TestMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A master of a real 3-master Redis Cluster killed with SIGKILL under lock load, after its
 * replica was cut off for a while so the promoted replica lacks the master's last lock writes
 * (forced, not hoped for): the lock works again through {@code clusterUris}, no acknowledged
 * fenced write is lost or applied twice, and tokens handed out after the failover are above
 * all tokens handed out before it, for the killed master's key too.
 */
@Tag("long") // an end-to-end run of its own: mvn -Plong test (see README, "Tests")
class RedisClusterFailoverTest {
  private static final Logger log = LoggerFactory.getLogger(RedisClusterFailoverTest.class);
  private static final Duration LEASE = Duration.ofSeconds(2);
  private final List<AutoCloseable> resources = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
  }

  @Test
  void aMasterKilledUnderLoadLosesNoAcknowledgedWriteAndTokensKeepRising() throws Exception {
    LocalRedisCluster cluster = LocalRedisCluster.start();
    resources.add(cluster);
    String prefix = "wgtest:failover:";
    RedisProcess victim = cluster.masterOf(RedisLeaseStore.redisKey(prefix, "hot"));
    RedisProcess replica = cluster.replicaOf(victim);
    List<RedisLockService> services = new ArrayList<>();
    for (String owner : List.of("proc-a", "proc-b")) {
      RedisLockService locks = RedisLockService.builder().clusterUris(cluster.uris()).keyPrefix(prefix)
          .owner(owner).lease(LEASE).renewInterval(Duration.ofMillis(500)).build();
      resources.add(locks);
      services.add(locks);
    }
    MongoCollection<Document> docs = TestMongo.freshDatabase("RedisClusterFailover").getCollection("docs");
    FailoverLoad load = new FailoverLoad(docs, List.of("hot", "warm", "cool"), services);
    long[] phases = new long[2];

    load.run(6, Duration.ofSeconds(150), () -> {
      FailoverLoad.await("200 acknowledged writes", Duration.ofSeconds(60), () -> load.acks() >= 200);
      cluster.cutReplication(victim, replica);
      long cut = System.nanoTime();
      FailoverLoad.await("50 writes on the key the replica will not know of", Duration.ofSeconds(60),
          () -> load.acks("hot", cut) >= 50);
      phases[0] = System.nanoTime();
      victim.kill();
      cluster.awaitPromoted(replica, Duration.ofSeconds(60));
      long promoted = System.nanoTime();
      // After the old holders' leases ran out, every handle was minted by the new master.
      phases[1] = Math.max(System.nanoTime(), phases[0] + LEASE.toNanos());
      FailoverLoad.await("100 acknowledged writes on the failed-over key", Duration.ofSeconds(60),
          () -> load.acks("hot", phases[1]) >= 100);
      log.info("cluster failover: promoted {} ms after the kill, lock back {} ms after that",
          (promoted - phases[0]) / 1_000_000, (System.nanoTime() - promoted) / 1_000_000);
    });

    log.info("cluster failover: {}", load);
    load.assertNothingLost();
    assertThat(load.assertTokensRose(phases[0], phases[1])).as("keys compared").isEqualTo(3);
  }
}
