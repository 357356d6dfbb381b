package io.writeguard.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.writeguard.embedded.TornReadLoad.Limits;
import io.writeguard.embedded.TornReadLoad.ReadKind;
import io.writeguard.embedded.TornReadLoad.Result;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Proves that {@link EmbeddedMongo} never returns a half-applied update, and that the same load
 * does catch torn reads on the unpatched server (so this test is able to fail).
 *
 * <p>To measure the unpatched server over the full run instead of stopping at its third torn
 * read: {@code mvn -o -pl writeguard-embedded test -Dtest=SnapshotReadsStressTest
 * -Dwriteguard.tornreads.full=true}; both runs log their counts.
 */
@Tag("long") // an end-to-end run of its own: mvn -Plong test (see README, "Tests")
class SnapshotReadsStressTest {
  private static final Logger log = LoggerFactory.getLogger(SnapshotReadsStressTest.class);

  /** 20,000 find/findOneAndUpdate(AFTER) reads, 1,000 of each other kind, at most 30 s. */
  private static final Limits FULL_RUN = new Limits(20_000, 1_000, 0, 60_000);

  /**
   * The same load, stopped early once 3 torn reads were seen (the unpatched server tears about
   * once per 1,000-2,000 reads, so ~20,000 reads without a single one would be a surprise).
   */
  private static final Limits UNTIL_TORN = new Limits(20_000, 1_000, 3, 60_000);

  @Test
  void patchedServerNeverReturnsAHalfAppliedUpdate() throws Exception {
    Result result;
    try (EmbeddedMongo mongo = EmbeddedMongo.start()) {
      result = TornReadLoad.run(mongo.uri(), FULL_RUN);
    }
    log.info("patched server: {}", result);

    assertThat(result.reads(ReadKind.FIND, ReadKind.FIND_ONE_AND_UPDATE_AFTER))
        .as("find + findOneAndUpdate(AFTER) reads within the time bound: %s", result)
        .isGreaterThanOrEqualTo(20_000);
    for (ReadKind kind : ReadKind.values()) {
      assertThat(result.reads.get(kind)).as("%s reads", kind).isGreaterThanOrEqualTo(1_000);
    }
    assertThat(result.totalTorn()).as("torn reads: %s", result).isZero();
    assertThat(result.sumA).as("sum(a) == acknowledged writes").isEqualTo(result.writes);
    assertThat(result.sumB).as("sum(b) == acknowledged writes").isEqualTo(result.writes);
    assertThat(result.sumC)
        .as("sum(c) == acknowledged findOneAndUpdates")
        .isEqualTo(result.findOneAndUpdates);
  }

  @Test
  void durableServerNeverReturnsAHalfAppliedUpdate(@TempDir Path dataDirectory) throws Exception {
    Result result;
    try (EmbeddedMongo mongo = EmbeddedMongo.start(0, dataDirectory)) {
      result = TornReadLoad.run(mongo.uri(), FULL_RUN);
    }
    log.info("durable (H2) server: {}", result);
    assertThat(result.totalTorn()).as("torn reads: %s", result).isZero();
    for (ReadKind kind : ReadKind.values()) {
      assertThat(result.reads.get(kind)).as("%s reads", kind).isGreaterThanOrEqualTo(1_000);
    }
    assertThat(result.sumA).as("sum(a) == acknowledged writes").isEqualTo(result.writes);
    assertThat(result.sumB).as("sum(b) == acknowledged writes").isEqualTo(result.writes);
    assertThat(result.sumC)
        .as("sum(c) == acknowledged findOneAndUpdates")
        .isEqualTo(result.findOneAndUpdates);
  }

  @Test
  void unpatchedServerTearsUnderTheSameLoad() throws Exception {
    MongoServer server = new MongoServer(new MemoryBackend());
    Result result;
    try {
      String uri = "mongodb://127.0.0.1:" + bind(server);
      boolean full = Boolean.getBoolean("writeguard.tornreads.full");
      result = TornReadLoad.run(uri, full ? FULL_RUN : UNTIL_TORN);
    } finally {
      server.shutdownNow();
    }
    log.info("unpatched server: {}", result);
    assertThat(result.totalTorn())
        .as("torn reads on the unpatched server: %s", result)
        .isPositive();
  }

  private static int bind(MongoServer server) {
    server.bind("127.0.0.1", 0);
    return server.getLocalAddress().getPort();
  }
}
