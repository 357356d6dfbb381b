package io.writeguard.app.lab.transfer;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gte;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Updates;
import io.writeguard.app.lab.LabProgress;
import io.writeguard.app.lab.LabRunner;
import io.writeguard.app.lab.Scenarios;
import io.writeguard.app.lab.api.BalanceSettings;
import io.writeguard.app.lab.api.LabStrategy;
import io.writeguard.app.lab.api.Scenario.Verification;
import io.writeguard.app.lab.api.Strategy.LabServices;
import io.writeguard.app.lab.plan.LabPlan;
import io.writeguard.app.lab.plan.LabSettings;
import io.writeguard.app.lab.result.LabReport;
import io.writeguard.app.lab.result.LabReport.ServerInfo;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import io.writeguard.app.lab.transfer.TransferScenario.TransferClient;
import io.writeguard.app.lab.transfer.TransferScenario.TransferOp;
import io.writeguard.testing.TestMongo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TransferScenarioTest {
  private static final ServerInfo SERVER = new ServerInfo("embedded", "test");
  private final MongoDatabase db = TestMongo.freshDatabase("Transfer");
  private final StringWriter progress = new StringWriter();

  /**
   * Debit if covered, then credit, as two plain writes: not atomic against a crash, but in a
   * run where nothing crashes every acknowledged transfer lands whole. It lets the scenario's
   * bookkeeping be tested on a server without transactions.
   */
  private static final LabStrategy<TransferOp> TWO_WRITES = new LabStrategy<>("two-writes",
      false, "test only", ctx -> op -> {
        if (ctx.collection().updateOne(and(eq("_id", op.fromId()), gte("balance", op.amount())),
            Updates.inc("balance", -op.amount())).getMatchedCount() == 0) {
          op.refuse();
          return;
        }
        ctx.collection().updateOne(eq("_id", op.toId()), Updates.inc("balance", op.amount()));
      });

  private StrategyResult run(LabStrategy<TransferOp> strategy, int clients, long ops) {
    LabReport report = new LabRunner(db,
        LabSettings.counted(clients, 4, 42, ops, Duration.ZERO)
            .withBalances(new BalanceSettings(50, 30, 10)),
        new PrintWriter(progress))
        .run(new LabPlan<>(new TransferScenario(), List.of(strategy)), SERVER);
    return report.results().get(0);
  }

  @Test
  void everyAcknowledgedTransferIsFoundInTheAccountsAndTheSumStaysTheSame() {
    StrategyResult r = run(TWO_WRITES, 8, 800);

    assertThat(r.acknowledged()).isEqualTo(800);
    assertThat(r.lostUpdates()).isZero();
    assertThat(r.figure("final_total", -1)).isEqualTo(200).isEqualTo(r.figure("expected_total", -2));
    assertThat(r.figure("account_mismatches", -1)).isZero();
    assertThat(r.figure("min_balance", -1)).isGreaterThanOrEqualTo(0);
    assertThat(r.figure("transfers", 0) + r.figure("refused_transfers", 0)).isEqualTo(800);
    // 4 accounts of 50 and amounts up to 30: some transfers must be refused.
    assertThat(r.figure("refused_transfers", 0)).isPositive();
    assertThat(r.figure(Verification.VIOLATIONS, -1)).isZero();
  }

  @Test
  void aCreditWithoutItsDebitIsCaughtAsALossAndAChangedSum() {
    LabStrategy<TransferOp> creditOnly = new LabStrategy<>("credit-only", false, "test only",
        ctx -> op -> ctx.collection().updateOne(eq("_id", op.toId()),
            Updates.inc("balance", op.amount())));
    StrategyResult r = run(creditOnly, 2, 100);

    assertThat(r.lostUpdates()).isPositive();
    assertThat(r.figure("final_total", -1)).isGreaterThan(r.figure("expected_total", -1));
    assertThat(r.figure("account_mismatches", 0)).isPositive();
  }

  @Test
  void aStandaloneServerIsReportedUnsupportedWithTheReason() {
    assumeThat(TestMongo.isEmbedded()).as("the embedded server is standalone").isTrue();
    Optional<String> why = new TransferScenario().unsupportedReason(TestMongo.client());
    assertThat(why).hasValueSatisfying(reason -> assertThat(reason)
        .contains("STANDALONE", "replica set", "nothing was executed"));
  }

  @Test
  void transfersInTransactionsKeepTheSumOnAReplicaSet() {
    // Runs when MONGODB_URI points at a replica set; the embedded server cannot do this.
    Optional<String> why = new TransferScenario().unsupportedReason(TestMongo.client());
    assumeThat(why).as("needs a replica set (MONGODB_URI)").isEmpty();
    LabPlan<?> plan = Scenarios.standard().plan("transfer", List.of());
    LabReport report = new LabRunner(TestMongo.client(), db,
        LabSettings.counted(8, 4, 42, 400, Duration.ZERO),
        LabProgress.plain(new PrintWriter(progress), false), LabServices.of(db, null))
        .run(plan, SERVER);
    StrategyResult r = report.result("transaction").orElseThrow();
    assertThat(r.lostUpdates()).isZero();
    assertThat(r.figure("final_total", -1)).isEqualTo(r.figure("expected_total", -2));
    assertThat(r.figure("min_balance", -1)).isGreaterThanOrEqualTo(0);
    assertThat(r.acknowledged() + r.errors()).isEqualTo(400);
  }

  @Test
  void transfersGoBetweenTwoDifferentAccounts() {
    TransferClient client = new TransferClient(2, 5, 7);
    for (int i = 0; i < 200; i++) {
      TransferOp op = client.next();
      assertThat(op.fromId()).isNotEqualTo(op.toId());
      assertThat(op.amount()).isBetween(1L, 5L);
    }
  }
}
