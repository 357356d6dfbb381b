package io.writeguard.app.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.client.MongoDatabase;
import io.lettuce.core.RedisClient;
import io.writeguard.app.lab.LabRunner.LabAbortedException;
import io.writeguard.app.lab.api.LabStrategy;
import io.writeguard.app.lab.api.ScenarioEntry;
import io.writeguard.app.lab.api.Strategy.LabServices;
import io.writeguard.app.lab.plan.LabPlan;
import io.writeguard.app.lab.plan.LabSettings;
import io.writeguard.app.lab.report.ResultTable;
import io.writeguard.app.lab.result.LabReport;
import io.writeguard.app.lab.result.LabReport.ServerInfo;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import io.writeguard.app.testing.TestRedis;
import io.writeguard.testing.TestMongo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The lab's lock strategies and adaptive, run by the real runner with exact totals. */
class LockStrategiesLabTest {
  private static final ServerInfo SERVER = new ServerInfo("embedded", "test");
  private static RedisClient redis;
  private final MongoDatabase db = TestMongo.freshDatabase("LockLab");
  private final StringWriter progress = new StringWriter();

  @BeforeAll
  static void connect() {
    redis = RedisClient.create(TestRedis.uri());
  }

  @AfterAll
  static void disconnect() {
    redis.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  private LabReport run(List<String> strategies, LabSettings settings, LabServices services) {
    LabPlan<?> plan = Scenarios.standard().plan("readinfo", strategies);
    return new LabRunner(null, db, settings, LabProgress.plain(new PrintWriter(progress), false),
        services).run(plan, SERVER);
  }

  @ParameterizedTest(name = "{0}, group commit {1}")
  @CsvSource({"local-lock,true", "mongo-lock,true", "redis-lock,true", "adaptive,true",
      "local-lock,false", "mongo-lock,false", "redis-lock,false", "adaptive,false"})
  void sixteenClientsOnOneDocumentLoseNothingWithExactTotals(String strategy,
      boolean groupCommit) {
    LabReport report = run(List.of(strategy), LabSettings.counted(16, 1, 42, 800, Duration.ZERO)
        .withGroupCommit(groupCommit), LabServices.of(db, redis));

    StrategyResult r = report.result(strategy).orElseThrow();
    assertThat(r.acknowledged() + r.errors()).isEqualTo(800);
    assertThat(r.acknowledged()).isPositive();
    assertThat(r.lostUpdates()).isZero();
    assertThat(r.visible()).isEqualTo(r.expected()).isPositive();
    assertThat(r.attempts()).isEqualTo(800 + r.retries());
    assertThat(r.fencedRejections()).isZero();
    if (!strategy.equals("adaptive")) {
      // Every mark took the lock, and nobody wrote around it: no conflicts, one attempt each.
      assertThat(r.conflicts()).isZero();
      assertThat(r.lockWaitMs()).isNotNull();
      assertThat(r.lockWaitMs().max()).isGreaterThanOrEqualTo(r.lockWaitMs().p99());
      assertThat(r.lockWaitMs().p99()).isGreaterThanOrEqualTo(r.lockWaitMs().p50());
      if (!groupCommit) {
        // 16 clients queue for one document's lock: someone waited. (Combined, they queue
        // behind one leader instead, and only the leaders take the lock.)
        assertThat(r.lockWaitMs().max()).isPositive();
      }
      assertThat(r.lockTimeouts()).isLessThanOrEqualTo(r.errors());
    }
    // The run's documents and the mongo lock's collection are dropped.
    assertThat(db.listCollectionNames().into(new ArrayList<>())).isEmpty();
  }

  @Test
  void theJsonReportHasLockWaitsTimeoutsAndFencedRejections() throws Exception {
    LabReport report = run(List.of("atomic", "local-lock"),
        LabSettings.counted(4, 1, 1, 100, Duration.ZERO), LabServices.of(db, redis));
    JsonNode json = new ObjectMapper().readTree(new ObjectMapper().writeValueAsString(report));

    JsonNode atomic = json.get("results").get(0);
    JsonNode locked = json.get("results").get(1);
    List<String> names = new ArrayList<>();
    locked.fieldNames().forEachRemaining(names::add);
    assertThat(names).containsSubsequence("strategy", "acknowledged", "lost_updates",
        "error_sample", "lock_wait_ms", "lock_timeouts", "fenced_rejections");
    assertThat(locked.get("lock_wait_ms").has("p50")).isTrue();
    assertThat(locked.get("lock_wait_ms").has("p99")).isTrue();
    assertThat(locked.get("lock_wait_ms").get("max").isNumber()).isTrue();
    assertThat(locked.get("lock_timeouts").asLong()).isZero();
    assertThat(locked.get("fenced_rejections").asLong()).isZero();
    // A strategy that takes no lock has no waits to report, rather than made-up zeros.
    assertThat(atomic.get("lock_wait_ms").isNull()).isTrue();
    assertThat(atomic.get("lock_timeouts").asLong()).isZero();

    String table = ResultTable.render(report, java.util.Set.of());
    assertThat(table).containsPattern("retries +lock p99 ms +lock t/o");
    assertThat(table).containsPattern("\\natomic .* +- +-\\R");
  }

  @Test
  void theTableHasNoLockColumnsWhenNoStrategyLocked() {
    LabReport report = run(List.of("atomic"), LabSettings.counted(2, 1, 1, 20, Duration.ZERO),
        LabServices.of(db, null));
    assertThat(ResultTable.render(report, java.util.Set.of())).doesNotContain("lock");
  }

  @Test
  void redisLockWithoutRedisIsRefusedBeforeItRuns() {
    assertThatThrownBy(() -> run(List.of("redis-lock"),
        LabSettings.counted(2, 1, 1, 20, Duration.ZERO), LabServices.of(db, null)))
        .isInstanceOf(LabAbortedException.class)
        .hasMessageContaining("redis-lock needs Redis");
  }

  @Test
  void onlyRedisLockAsksForRedis() {
    ScenarioEntry<?> readinfo = Scenarios.standard().scenario("readinfo");
    assertThat(LabPlan.of(readinfo, List.of()).strategies())
        .filteredOn(LabStrategy::needsRedis)
        .extracting(LabStrategy::name)
        .containsExactly("redis-lock");
  }
}
