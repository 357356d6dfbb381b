package io.writeguard.app.lab.counter;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.Ticker;
import io.writeguard.app.lab.LabRunner;
import io.writeguard.app.lab.Scenarios;
import io.writeguard.app.lab.StrategyStats;
import io.writeguard.app.lab.api.BalanceSettings;
import io.writeguard.app.lab.api.LabStrategy;
import io.writeguard.app.lab.api.Scenario.ScenarioSettings;
import io.writeguard.app.lab.api.Scenario.Verification;
import io.writeguard.app.lab.api.ScenarioEntry;
import io.writeguard.app.lab.api.Strategy.StrategyContext;
import io.writeguard.app.lab.counter.CounterRun.CounterTotals;
import io.writeguard.app.lab.counter.CounterScenario.CounterClient;
import io.writeguard.app.lab.counter.CounterScenario.CounterOp;
import io.writeguard.app.lab.counter.CounterStrategies.AtomicCounter;
import io.writeguard.app.lab.counter.CounterStrategies.CounterStore;
import io.writeguard.app.lab.counter.CounterStrategies.NaiveCounter;
import io.writeguard.app.lab.plan.LabPlan;
import io.writeguard.app.lab.plan.LabSettings;
import io.writeguard.app.lab.result.LabReport;
import io.writeguard.app.lab.result.LabReport.ServerInfo;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import io.writeguard.monitor.OperationScope;
import io.writeguard.testing.TestMongo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CounterScenarioTest {
  private static final ServerInfo SERVER = new ServerInfo("embedded", "test");
  private static final int OPS = 1_600;
  private final MongoDatabase db = TestMongo.freshDatabase("Counter");
  private final StringWriter progress = new StringWriter();
  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private StrategyResult run(String strategy, int clients, BalanceSettings balances) {
    LabPlan<?> plan = Scenarios.standard().plan("counter", List.of(strategy));
    LabSettings settings = LabSettings.counted(clients, 1, 42, OPS, Duration.ZERO)
        .withBalances(balances);
    LabReport report = new LabRunner(db, settings, new PrintWriter(progress)).run(plan, SERVER);
    assertThat(report.balances()).isEqualTo(balances);
    return report.result(strategy).orElseThrow();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"atomic", "optimistic", "sharded-fields", "sharded-docs"})
  void sixteenClientsOnOneBalanceEndExactlyAtTheExpectedTotalAndNeverReadBelowZero(
      String strategy) {
    StrategyResult r = run(strategy, 16, BalanceSettings.DEFAULTS);

    assertThat(r.acknowledged() + r.errors()).isEqualTo(OPS);
    assertThat(r.acknowledged()).isPositive();
    long increments = r.figure("increments", -1);
    long decrements = r.figure("decrements", -1);
    long refused = r.figure("refused_decrements", -1);
    assertThat(increments + decrements + refused).isEqualTo(r.acknowledged());
    assertThat(increments).isPositive();
    assertThat(decrements).isPositive();
    assertThat(r.figure("final_total", -1)).isEqualTo(r.figure("expected_total", -2));
    assertThat(r.lostUpdates()).isZero();
    assertThat(r.visible()).isEqualTo(r.expected()).isPositive();
    assertThat(r.figure("min_total", -1)).isGreaterThanOrEqualTo(0);
    assertThat(r.figure("reads", 0)).isPositive();
    assertThat(r.figure(Verification.VIOLATIONS, -1)).isZero();
    assertThat(r.figure("generations", -1)).isEqualTo(2); // 1,600 ops, 1,024 per generation
    assertThat(r.figure("initial_total", -1)).isEqualTo(100 * r.figure("generations", -1));
    assertThat(r.figure("unledgered_units", -1)).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"atomic", "optimistic", "sharded-fields", "sharded-docs"})
  void sixteenClientsOnAnEmptyBalanceStillEndExactAndNeverReadBelowZero(String strategy) {
    // Starting at 0, decrements meet a balance near zero: refusals, multi-shard combines.
    StrategyResult r = run(strategy, 16, new BalanceSettings(0, 10, 10));

    assertThat(r.acknowledged() + r.errors()).isEqualTo(OPS);
    assertThat(r.figure("final_total", -1)).isEqualTo(r.figure("expected_total", -2));
    assertThat(r.lostUpdates()).isZero();
    assertThat(r.figure("min_total", -1)).isGreaterThanOrEqualTo(0);
    assertThat(r.figure(Verification.VIOLATIONS, -1)).isZero();
  }

  @Test
  void oneClientGetsTheSameRefusalsAndFinalTotalFromEveryCorrectStrategy() {
    // One client is sequential: a decrement is refused exactly when the balance is short, so
    // every correct strategy must answer the same stream the same way.
    LabPlan<?> plan = Scenarios.standard()
        .plan("counter", List.of("atomic", "optimistic", "sharded-fields", "sharded-docs"));
    LabReport report = new LabRunner(db,
        LabSettings.counted(1, 1, 42, 600, Duration.ZERO).withBalances(new BalanceSettings(0, 10, 3)),
        new PrintWriter(progress)).run(plan, SERVER);

    StrategyResult atomic = report.result("atomic").orElseThrow();
    assertThat(atomic.figure("refused_decrements", 0)).isPositive();
    assertThat(report.results()).allSatisfy(r -> {
      assertThat(r.errors()).isZero();
      assertThat(r.lostUpdates()).isZero();
      assertThat(r.figure("refused_decrements", -1))
          .isEqualTo(atomic.figure("refused_decrements", -2));
      assertThat(r.figure("final_total", -1)).isEqualTo(atomic.figure("final_total", -2))
          .isEqualTo(r.figure("expected_total", -3));
    });
  }

  @Test
  void naiveLosesTheFirstIncrementWhenBothClientsReadBeforeEitherWrites() throws Exception {
    MongoCollection<Document> coll = db.getCollection("naive");
    CounterRun run = (CounterRun) new CounterScenario().start(coll,
        new ScenarioSettings(2, 1, 1, new BalanceSettings(100, 10, 10)));
    CyclicBarrier bothRead = new CyclicBarrier(2);
    NaiveCounter naive = new NaiveCounter(context(coll), () -> {
      try {
        bothRead.await(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    run.prepare(naive);
    CounterClient a = (CounterClient) run.client(0, 1);
    CounterClient b = (CounterClient) run.client(1, 2);
    CounterOp plus5 = new CounterOp(1, "g0-c0", 0, 5);
    CounterOp plus7 = new CounterOp(2, "g0-c0", 0, 7);
    Future<?> fa = pool.submit(() -> {
      naive.apply(plus5);
      a.acknowledged(plus5);
    });
    Future<?> fb = pool.submit(() -> {
      naive.apply(plus7);
      b.acknowledged(plus7);
    });
    fa.get(20, TimeUnit.SECONDS);
    fb.get(20, TimeUnit.SECONDS);

    Verification v = run.verify(List.of(a, b));
    run.close();
    // Both read 100; the later replace wrote 105 or 107 over the other's change.
    assertThat(v.figures().get("expected_total")).isEqualTo(112L);
    assertThat(v.figures().get("final_total")).isIn(105L, 107L);
    assertThat(v.lost()).isEqualTo(1);
    assertThat(v.figures().get("lost_units")).isIn(5L, 7L);
    assertThat(v.expected()).isEqualTo(2);
    assertThat(v.figures().get(Verification.VIOLATIONS)).isEqualTo(0L);
  }

  @Test
  void naiveLosingACreditAndADebitOfTheSameSizeCountsTwoLostUpdatesNotZero() throws Exception {
    // All three read 100. The credit (+5) and the debit (-5) are written, then the third
    // client's +7 replaces the document built on its old read, erasing both. The net check
    // sees 107 = 100 + 5 - 5 + 7 and counted 0; the ledger sees two operations missing.
    MongoCollection<Document> coll = db.getCollection("naive-cancel");
    CounterRun run = (CounterRun) new CounterScenario().start(coll,
        new ScenarioSettings(3, 1, 1, new BalanceSettings(100, 10, 10)));
    CyclicBarrier allRead = new CyclicBarrier(3);
    CountDownLatch firstTwoWritten = new CountDownLatch(2);
    ThreadLocal<Boolean> writesLast = ThreadLocal.withInitial(() -> false);
    NaiveCounter naive = new NaiveCounter(context(coll), () -> {
      try {
        allRead.await(10, TimeUnit.SECONDS);
        if (writesLast.get() && !firstTwoWritten.await(10, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the credit and the debit were not written");
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    run.prepare(naive);
    List<CounterClient> clients = List.of((CounterClient) run.client(0, 1),
        (CounterClient) run.client(1, 2), (CounterClient) run.client(2, 3));
    List<CounterOp> ops = List.of(new CounterOp(1, "g0-c0", 0, 5),
        new CounterOp(2, "g0-c0", 0, -5), new CounterOp(3, "g0-c0", 0, 7));
    ExecutorService three = Executors.newFixedThreadPool(3);
    try {
      List<Future<?>> done = new java.util.ArrayList<>();
      for (int i = 0; i < 3; i++) {
        int c = i;
        done.add(three.submit(() -> {
          writesLast.set(c == 2);
          naive.apply(ops.get(c));
          clients.get(c).acknowledged(ops.get(c));
          firstTwoWritten.countDown();
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      three.shutdownNow();
    }

    Verification v = run.verify(clients);
    run.close();
    assertThat(v.figures().get("final_total")).isEqualTo(107L);
    assertThat(v.figures().get("expected_total")).isEqualTo(107L);
    assertThat(v.figures().get("lost_units")).isEqualTo(0L); // what the net check saw
    assertThat(v.expected()).isEqualTo(3);
    assertThat(v.lost()).isEqualTo(2);
    assertThat(v.figures().get(Verification.VIOLATIONS)).isEqualTo(0L);
  }

  @Test
  void aBalanceChangedWithoutItsLedgerEntryIsAViolation() {
    // A broken strategy that applies the change but records nothing (or records what it did
    // not apply) must not pass: the balance no longer equals its start plus its ledger.
    LabStrategy<CounterOp> unrecorded = new LabStrategy<>("unrecorded", false,
        "$inc without the ledger entry", ctx -> new CounterStore() {
          @Override
          public void open(List<String> counterIds, BalanceSettings balances) {
            new AtomicCounter(ctx).open(counterIds, balances);
          }

          @Override
          public void apply(CounterOp op) {
            ctx.collection().updateOne(com.mongodb.client.model.Filters.eq("_id", op.counterId()),
                com.mongodb.client.model.Updates.combine(
                    com.mongodb.client.model.Updates.inc("balance", 1_000),
                    op.recordChange(op.amount())));
          }
        });
    LabReport report = new LabRunner(db, LabSettings.counted(2, 1, 42, 40, Duration.ZERO),
        new PrintWriter(progress)).run(new LabPlan<>(new CounterScenario(), List.of(unrecorded)),
        SERVER);
    StrategyResult r = report.results().get(0);
    assertThat(r.lostUpdates()).isZero(); // every id carries the change it was acknowledged as
    assertThat(r.figure("unledgered_units", -1)).isPositive();
    assertThat(r.figure(Verification.VIOLATIONS, -1)).isPositive();
  }

  @Test
  void aStrategyThatAcknowledgesWithoutWritingLosesEveryUnitItClaimed() {
    LabStrategy<CounterOp> liar = new LabStrategy<>("liar", false, "acknowledges, writes nothing",
        ctx -> new CounterStore() {
          @Override
          public void open(List<String> counterIds, BalanceSettings balances) {
            new AtomicCounter(ctx).open(counterIds, balances);
          }

          @Override
          public void apply(CounterOp op) {}
        });
    LabPlan<CounterOp> plan = new LabPlan<>(new CounterScenario(), List.of(liar));
    LabReport report = new LabRunner(db,
        LabSettings.counted(4, 1, 42, 400, Duration.ZERO), new PrintWriter(progress))
        .run(plan, SERVER);
    StrategyResult r = report.results().get(0);
    long increments = r.figure("increments", -1);
    assertThat(r.figure("final_total", -1)).isEqualTo(100);
    assertThat(r.figure("expected_total", -1)).isNotEqualTo(100);
    assertThat(r.figure("lost_units", -1))
        .isEqualTo(Math.abs(r.figure("expected_total", 0) - r.figure("final_total", 0)));
    // Every acknowledged increment and decrement is missing (refusals: the liar never refuses).
    assertThat(r.lostUpdates()).isEqualTo(r.acknowledged()).isPositive();
    assertThat(increments).isPositive();
  }

  @Test
  void theTotalIsReadFromTheDocumentsWhateverTheLayout() {
    MongoCollection<Document> coll = db.getCollection("layouts");
    coll.insertMany(List.of(
        new Document("_id", "single").append("balance", 120L).append("version", 3L),
        new Document("_id", "fields").append("balance_shard_0", 5L)
            .append("balance_shard_9", 7L).append("other", 1000L),
        new Document("_id", "docs#0").append("counter", "docs").append("shard", 0)
            .append("balance", 4L),
        new Document("_id", "docs#3").append("counter", "docs").append("shard", 3)
            .append("balance", 6L)));
    assertThat(CounterTotals.read(coll, "single")).isEqualTo(120);
    assertThat(CounterTotals.read(coll, "fields")).isEqualTo(12);
    assertThat(CounterTotals.read(coll, "docs")).isEqualTo(10);
    assertThat(CounterTotals.read(coll, "missing")).isZero();
  }

  @Test
  void theScenarioIsRegisteredWithItsFiveStrategiesAndOneBalanceByDefault() {
    ScenarioEntry<?> entry = Scenarios.standard().scenario("counter");
    assertThat(entry.strategyNames())
        .containsExactly("naive", "atomic", "optimistic", "sharded-fields", "sharded-docs");
    assertThat(entry.scenario().defaultDocs()).isEqualTo(1);
  }

  private static StrategyContext context(MongoCollection<Document> coll) {
    return new StrategyContext(coll, new StrategyStats(), new OperationScope("c", "test"),
        Ticker.system());
  }
}
