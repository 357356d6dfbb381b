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
 * The master of a real Sentinel set-up killed with SIGKILL under lock load, after its replica
 * was cut off so the promoted replica lacks the master's last lock writes: the services,
 * connected by {@code redis-sentinel://}, reconnect to the promoted replica; no acknowledged
 * fenced write is lost or applied twice; tokens after the failover are above all before it.
 */
@Tag("long") // an end-to-end run of its own: mvn -Plong test (see README, "Tests")
class RedisSentinelFailoverTest {
  private static final Logger log = LoggerFactory.getLogger(RedisSentinelFailoverTest.class);
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
    LocalRedisSentinel sentinel = LocalRedisSentinel.start();
    resources.add(sentinel);
    List<RedisLockService> services = new ArrayList<>();
    for (String owner : List.of("proc-a", "proc-b")) {
      RedisLockService locks = RedisLockService.builder().uri(sentinel.uri()).keyPrefix("wgtest:sentinel-failover:")
          .owner(owner).lease(LEASE).renewInterval(Duration.ofMillis(500)).build();
      resources.add(locks);
      services.add(locks);
    }
    MongoCollection<Document> docs = TestMongo.freshDatabase("RedisSentinelFailover").getCollection("docs");
    FailoverLoad load = new FailoverLoad(docs, List.of("hot", "warm"), services);
    long[] phases = new long[2];

    load.run(6, Duration.ofSeconds(150), () -> {
      FailoverLoad.await("200 acknowledged writes", Duration.ofSeconds(60), () -> load.acks() >= 200);
      sentinel.cutReplication();
      long cut = System.nanoTime();
      FailoverLoad.await("50 writes the replica will not know of", Duration.ofSeconds(60),
          () -> load.acks("hot", cut) >= 50);
      phases[0] = System.nanoTime();
      sentinel.master().kill();
      sentinel.awaitReplicaPromoted(Duration.ofSeconds(60));
      long promoted = System.nanoTime();
      phases[1] = Math.max(promoted, phases[0] + LEASE.toNanos());
      FailoverLoad.await("100 acknowledged writes after the failover", Duration.ofSeconds(60),
          () -> load.acks("hot", phases[1]) >= 100);
      log.info("sentinel failover: promoted {} ms after the kill, lock back {} ms after that",
          (promoted - phases[0]) / 1_000_000, (System.nanoTime() - promoted) / 1_000_000);
    });

    log.info("sentinel failover: {}", load);
    load.assertNothingLost();
    assertThat(load.assertTokensRose(phases[0], phases[1])).as("keys compared").isEqualTo(2);
  }
}
