package io.writeguard.bench;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The flat-combining reference is exact: 8 concurrent clients x 250 updates of one document
 * are all acknowledged, all in the final document, and the version counts every one of them.
 * A bench run in the other workload shapes (one document per client, cold documents around
 * them, padded documents) loses nothing either, counts the MongoDB commands each call sent, and
 * leaves the collection as it found it.
 * Bounded by operation count; no timed assertion.
 */
class FlatCombiningReferenceTest {
  private static final int CLIENTS = 8;
  private static final int OPS_PER_CLIENT = 250;
  private static Backends backends;

  @BeforeAll
  static void connect() {
    backends = TestServers.backends();
  }

  @AfterAll
  static void close() {
    backends.close();
  }

  @Test
  void losesNothingWithEightConcurrentClients() {
    ObjectId docId = new ObjectId();
    backends.hot().insertOne(HotDocument.fresh(docId));
    try (Contender reference = Contenders.create(FlatCombiningReference.NAME, backends)) {
      RoundPart part = ClientRound.run(reference, docId, CLIENTS, Duration.ofMinutes(5),
          OPS_PER_CLIENT, 0, 1);
      LossCheck check = LossCheck.of(backends.hot(), docId, part.acked);
      Document last = backends.hot().find(eq("_id", docId)).first();

      assertThat(part.errors).as("errors (first: %s)", part.errorSample).isZero();
      assertThat(part.exhausted).isZero();
      assertThat(part.ackedCount()).isEqualTo(CLIENTS * OPS_PER_CLIENT);
      assertThat(check.lost()).isZero();
      assertThat(check.writtenNotAcked()).isZero();
      assertThat(HotDocument.kept(last).cardinality()).isEqualTo(CLIENTS * OPS_PER_CLIENT);
      assertThat(last.get(HotDocument.VERSION, Number.class).longValue())
          .isEqualTo(CLIENTS * OPS_PER_CLIENT);
      assertThat(part.allocatedBytes).isPositive();
      assertThat(part.cpuNanos).isPositive();
    }
  }

  @Test
  void perClientPaddedDocumentsAmongColdOnesLoseNothing() {
    Bench.Settings settings = new Bench.Settings(
        List.of(FlatCombiningReference.NAME, AtomicInc.NAME), 4, 1, 1, Duration.ZERO,
        Duration.ofMillis(300), true, 100, 1024);
    try (InProcessGroup group = new InProcessGroup(backends, 0, 1)) {
      Bench.Result result = new Bench(settings, backends.hot(), List.of(group), System.err).run();

      assertThat(result.summaries()).hasSize(2).allSatisfy(s -> {
        assertThat(s.errors()).as("errors (first: %s)", s.errorSample()).isZero();
        assertThat(s.acked()).isPositive();
        assertThat(s.lost()).isZero();
        assertThat(s.allocBytesPerCall()).isPositive();
        assertThat(s.cpuUsPerCall()).isPositive();
      });
      // Alone on its document, each reference call is one find and one replace; $inc is one
      // update: counted exactly, so the column says what is sent per call.
      assertThat(result.summaries().get(0).mongoCommandsPerCall()).isEqualTo(2.0);
      assertThat(result.summaries().get(1).mongoCommandsPerCall()).isEqualTo(1.0);
      assertThat(BenchReport.table(result))
          .contains("x ref", "alloc B/call", "cpu us/call", "cmds/call");
    }
    assertThat(backends.hot().countDocuments()).isZero();
  }

  @Test
  void commandsAreNotCountedUnlessAsked() {
    try (Backends plain = Backends.connect(TestServers.mongoUri(), "hot_" + new ObjectId(),
        null)) {
      plain.hot().insertOne(HotDocument.fresh(new ObjectId()));
      assertThat(plain.mongoCommandsSent()).isEqualTo(-1);
      plain.hot().drop();
    }
  }
}
