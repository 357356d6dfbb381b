package io.writeguard.app.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.MongoSocketReadException;
import com.mongodb.ServerAddress;
import com.mongodb.client.MongoDatabase;
import io.writeguard.app.lab.LabRunner.LabAbortedException;
import io.writeguard.app.lab.api.LabStrategy;
import io.writeguard.app.lab.api.Strategy.LabOperationException;
import io.writeguard.app.lab.api.Strategy.LabServices;
import io.writeguard.app.lab.plan.LabPlan;
import io.writeguard.app.lab.plan.LabSettings;
import io.writeguard.app.lab.readinfo.ReadInfoScenario;
import io.writeguard.app.lab.readinfo.ReadInfoScenario.Mark;
import io.writeguard.app.lab.result.LabReport;
import io.writeguard.app.lab.result.LabReport.ServerInfo;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import io.writeguard.testing.TestMongo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LabRunnerTest {
  private final MongoDatabase db = TestMongo.freshDatabase("LabRunner");
  private final StringWriter progress = new StringWriter();
  private static final ServerInfo SERVER = new ServerInfo("embedded", "test");

  private LabReport run(List<String> strategies, LabSettings settings) {
    LabPlan<?> plan = Scenarios.standard().plan("readinfo", strategies);
    return new LabRunner(db, settings, new PrintWriter(progress)).run(plan, SERVER);
  }

  @Test
  void naiveLosesMarksAtSixteenClientsAndAtomicLosesNoneWithExactTotals() {
    LabReport report = run(List.of("naive", "atomic"),
        LabSettings.counted(16, 1, 42, 1_000, Duration.ZERO));

    StrategyResult naive = report.result("naive").orElseThrow();
    assertThat(naive.acknowledged() + naive.errors()).isEqualTo(1_000);
    assertThat(naive.lostUpdates()).isPositive();
    assertThat(naive.visible()).isEqualTo(naive.expected() - naive.lostUpdates());

    StrategyResult atomic = report.result("atomic").orElseThrow();
    assertThat(atomic.errors()).isZero();
    assertThat(atomic.acknowledged()).isEqualTo(1_000);
    assertThat(atomic.attempts()).isEqualTo(1_000);
    assertThat(atomic.lostUpdates()).isZero();
    // Repeated clicks are counted once: fewer distinct marks than operations, all visible.
    assertThat(atomic.expected()).isBetween(1L, 1_000L);
    assertThat(atomic.visible()).isEqualTo(atomic.expected());
    assertThat(atomic.conflictRatio()).isZero();
    assertThat(atomic.throughputOpsS()).isPositive();
    assertThat(atomic.latencyMs().p50()).isPositive();
    assertThat(atomic.latencyMs().max()).isGreaterThanOrEqualTo(atomic.latencyMs().p99());

    assertThat(progress.toString()).contains("naive", "atomic").hasLineCount(2);
  }

  @Test
  void optimisticLosesNoneAtSixteenClientsOnOneDocumentAndCountsEveryAttempt() {
    LabReport report = run(List.of("optimistic"),
        LabSettings.counted(16, 1, 42, 1_000, Duration.ZERO));
    StrategyResult r = report.result("optimistic").orElseThrow();
    assertThat(r.acknowledged() + r.errors()).isEqualTo(1_000);
    assertThat(r.acknowledged()).isPositive();
    assertThat(r.lostUpdates()).isZero();
    assertThat(r.visible()).isEqualTo(r.expected()).isPositive();
    // Attempts: one per operation plus one per retry; every conflict is counted.
    assertThat(r.attempts()).isEqualTo(1_000 + r.retries());
    // With group commit (the default) the clients of one process rarely conflict: they queue
    // behind one reader. Staged conflicts are in ReadInfoScenarioTest.
    assertThat(r.conflictRatio()).isCloseTo((double) r.conflicts() / r.attempts(),
        org.assertj.core.data.Offset.offset(0.0001));
  }

  @Test
  void strategiesRunInTheOrderGivenWithTheSameBudget() {
    LabReport report = run(List.of("atomic", "naive"),
        LabSettings.counted(3, 2, 7, 300, Duration.ZERO));
    assertThat(report.results()).extracting(StrategyResult::strategy)
        .containsExactly("atomic", "naive");
    assertThat(report.results())
        .allSatisfy(r -> assertThat(r.acknowledged() + r.errors()).isEqualTo(300));
  }

  @Test
  void aTimedRunStopsNearItsDurationAndWarmsUpUnmeasured() {
    LabReport report = run(List.of("atomic"),
        LabSettings.timed(4, 2, 1, Duration.ofMillis(400), Duration.ofMillis(200)));
    StrategyResult atomic = report.result("atomic").orElseThrow();
    assertThat(atomic.elapsedS()).isBetween(0.4, 30.0);
    assertThat(atomic.acknowledged()).isPositive();
    assertThat(atomic.attempts()).isEqualTo(atomic.acknowledged() + atomic.errors());
    assertThat(report.durationS()).isEqualTo(0.4);
    assertThat(report.ops()).isNull();
    // Warm-up and measured documents are dropped afterwards.
    assertThat(db.listCollectionNames().into(new ArrayList<>())).isEmpty();
  }

  @Test
  void theJsonReportHasTheStableNames() throws Exception {
    LabReport report = run(List.of("atomic"), LabSettings.counted(2, 4, 1, 50, Duration.ZERO));
    JsonNode json = new ObjectMapper().readTree(new ObjectMapper().writeValueAsString(report));

    assertThat(json.get("scenario").asText()).isEqualTo("readinfo");
    assertThat(json.get("server").get("kind").asText()).isEqualTo("embedded");
    assertThat(json.get("server").has("version")).isTrue();
    assertThat(json.get("clients").asInt()).isEqualTo(2);
    assertThat(json.get("docs").asInt()).isEqualTo(4);
    assertThat(json.has("duration_s")).isTrue();
    assertThat(json.get("ops").asLong()).isEqualTo(50);
    JsonNode r = json.get("results").get(0);
    List<String> names = new ArrayList<>();
    r.fieldNames().forEachRemaining(names::add);
    assertThat(names).containsSubsequence("strategy", "acknowledged", "lost_updates", "errors",
        "throughput_ops_s", "latency_ms", "conflict_ratio", "retries");
    assertThat(r.get("strategy").asText()).isEqualTo("atomic");
    assertThat(r.get("acknowledged").asLong()).isEqualTo(50);
    assertThat(r.get("lost_updates").asLong()).isZero();
    assertThat(r.get("latency_ms").has("p50")).isTrue();
    assertThat(r.get("latency_ms").has("p99")).isTrue();
    assertThat(r.get("latency_ms").has("max")).isTrue();
    assertThat(r.get("conflict_ratio").isNumber()).isTrue();
  }

  @Test
  void errorsAreCountedAndTheRunGoesOn() {
    AtomicInteger calls = new AtomicInteger();
    LabStrategy<Mark> flaky = new LabStrategy<>("flaky", false, "fails every third op", ctx -> op -> {
      if (calls.incrementAndGet() % 3 == 0) {
        throw new LabOperationException("no luck");
      }
    });
    LabReport report = new LabRunner(db, LabSettings.counted(2, 1, 1, 90, Duration.ZERO),
        new PrintWriter(progress)).run(new LabPlan<>(new ReadInfoScenario(), List.of(flaky)), SERVER);
    StrategyResult r = report.results().get(0);
    assertThat(r.errors()).isEqualTo(30);
    assertThat(r.acknowledged()).isEqualTo(60);
    assertThat(r.errorSample()).contains("no luck");
    // This strategy "acknowledged" without writing: every distinct mark it claimed is lost.
    assertThat(r.lostUpdates()).isEqualTo(r.expected()).isPositive();
  }

  @Test
  void aServerThatStopsAnsweringAbortsTheRunWithoutAResult() {
    LabStrategy<Mark> gone = new LabStrategy<>("gone", false, "the socket closes", ctx -> op -> {
      throw new MongoSocketReadException("Prematurely reached end of stream",
          new ServerAddress("127.0.0.1", 1));
    });
    LabStrategy<Mark> atomic = pick("atomic");
    LabRunner runner = new LabRunner(db, LabSettings.counted(4, 1, 1, 200, Duration.ZERO),
        new PrintWriter(progress));
    assertThatThrownBy(() -> runner.run(
        new LabPlan<>(new ReadInfoScenario(), List.of(atomic, gone)), SERVER))
        .isInstanceOf(LabAbortedException.class)
        .hasMessageContaining("MongoDB stopped answering")
        .hasMessageContaining("'gone'");
    // The strategy measured before it was reported; none for the one that failed.
    assertThat(progress.toString()).contains("atomic").doesNotContain("gone");
  }

  @Test
  void clientsThatStallAbortTheRun() {
    LabStrategy<Mark> stuck = new LabStrategy<>("stuck", false, "never returns", ctx -> op -> {
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LabOperationException("interrupted");
      }
    });
    LabRunner runner = new LabRunner(null, db, LabSettings.counted(2, 1, 1, 10, Duration.ZERO),
        LabProgress.plain(new PrintWriter(progress), false), LabServices.of(db, null),
        io.writeguard.Ticker.system(), Duration.ofMillis(500));
    assertThatThrownBy(() -> runner.run(
        new LabPlan<>(new ReadInfoScenario(), List.of(stuck)), SERVER))
        .isInstanceOf(LabAbortedException.class)
        .hasMessageContaining("no operation of strategy 'stuck' completed");
  }

  @SuppressWarnings("unchecked")
  private static LabStrategy<Mark> pick(String name) {
    LabPlan<?> plan = Scenarios.standard().plan("readinfo", List.of(name));
    Iterator<?> it = plan.strategies().iterator();
    return (LabStrategy<Mark>) it.next();
  }
}
