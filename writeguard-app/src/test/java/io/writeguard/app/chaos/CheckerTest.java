package io.writeguard.app.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.app.chaos.Checker.FinalState;
import io.writeguard.app.chaos.Checker.Recovery;
import io.writeguard.app.chaos.Op.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The checker flags every kind of bad history, and passes a clean one. */
class CheckerTest {
  private static final ChaosSettings SETTINGS = ChaosSettings.of(true, Duration.ofSeconds(2));
  private final Checker checker = new Checker(SETTINGS);

  private static Op op(String id, Outcome outcome) {
    return new Op(id, Load.READINFO, "atomic", "coord", outcome, 1_000, 1_000_000, 0, 0, false, "");
  }

  private static FinalState marks(String... applied) {
    Map<String, Integer> counts = new HashMap<>();
    for (String id : applied) {
      counts.merge(id, 1, Integer::sum);
    }
    return new FinalState(counts, List.of(), 0);
  }

  private ChaosRow check(List<Op> ops, FinalState state) {
    return checker.check("f", Load.READINFO, "atomic", ops, state, null, List.of());
  }

  @Test
  void aCleanHistoryHolds() {
    ChaosRow row = check(List.of(op("a", Outcome.ACK), op("b", Outcome.FAIL),
        op("c", Outcome.UNKNOWN), op("d", Outcome.UNKNOWN)), marks("a", "c"));
    assertThat(row.ok()).isTrue();
    assertThat(row.acknowledged()).isEqualTo(1);
    assertThat(row.unknown()).isEqualTo(2);
    assertThat(row.unknownApplied()).as("unknown ones are reported, either outcome allowed")
        .isEqualTo(1);
  }

  @Test
  void aDuplicatedAckIsFlagged() {
    ChaosRow row = check(List.of(op("a", Outcome.ACK)), marks("a", "a"));
    assertThat(row.duplicated()).isEqualTo(1);
    assertThat(row.ok()).isFalse();
  }

  @Test
  void aLostAckIsFlagged() {
    ChaosRow row = check(List.of(op("a", Outcome.ACK), op("b", Outcome.ACK)), marks("a"));
    assertThat(row.lost()).isEqualTo(1);
    assertThat(row.examples()).contains("lost b");
    assertThat(row.ok()).isFalse();
  }

  @Test
  void aFailedOperationThatWasAppliedIsFlagged() {
    ChaosRow row = check(List.of(op("a", Outcome.FAIL)), marks("a"));
    assertThat(row.phantom()).isEqualTo(1);
    assertThat(row.ok()).isFalse();
  }

  @Test
  void anIdNoOperationExplainsIsFlagged() {
    ChaosRow row = check(List.of(op("a", Outcome.ACK)), marks("a", "zzz"));
    assertThat(row.unexplained()).isEqualTo(1);
    assertThat(row.ok()).isFalse();
  }

  @Test
  void aLedgerThatGoesBelowZeroIsFlagged() {
    List<Op> ops = new ArrayList<>();
    ops.add(new Op("x", Load.COUNTER, "atomic", "coord", Outcome.ACK, 0, 1, -15, 0, false, ""));
    ops.add(new Op("y", Load.COUNTER, "atomic", "coord", Outcome.ACK, 0, 1, -10, 0, false, ""));
    long end = LedgerOps.INITIAL_BALANCE - 25;
    ChaosRow row = checker.check("f", Load.COUNTER, "atomic", ops,
        new FinalState(Map.of("x", 1, "y", 1), List.of(-15L, -10L), end), null, List.of());
    assertThat(row.negative()).isEqualTo(1);
    assertThat(row.ok()).isFalse();
  }

  @Test
  void aBalanceTheLedgerDoesNotExplainIsFlagged() {
    List<Op> ops = List.of(
        new Op("x", Load.COUNTER, "atomic", "coord", Outcome.ACK, 0, 1, 3, 0, false, ""));
    ChaosRow row = checker.check("f", Load.COUNTER, "atomic", ops,
        new FinalState(Map.of("x", 1), List.of(3L), LedgerOps.INITIAL_BALANCE + 6), null,
        List.of());
    assertThat(row.balanceMismatch()).isTrue();
    assertThat(row.ok()).isFalse();
  }

  @Test
  void aPausedHolderWhoseWriteWasNotFencedIsFlagged() {
    Op held = new Op("h", Load.READINFO, "mongo-lock", "holder", Outcome.ACK, 1_000,
        10_000_000_000L, 0, 0, true, "");
    Op other = new Op("o", Load.READINFO, "mongo-lock", "coord", Outcome.ACK, 4_000,
        5_000_000L, 0, 0, false, "");
    ChaosRow passed = checker.check("pause", Load.READINFO, "mongo-lock", List.of(held, other),
        marks("h", "o"), null, List.of());
    assertThat(passed.stalePassed()).isEqualTo(1);
    assertThat(passed.ok()).isFalse();

    Op refused = new Op("h", Load.READINFO, "mongo-lock", "holder", Outcome.ACK, 1_000,
        10_000_000_000L, 0, 1, true, "");
    ChaosRow fenced = checker.check("pause", Load.READINFO, "mongo-lock",
        List.of(refused, other), marks("h", "o"), null, List.of());
    assertThat(fenced.staleRefused()).isEqualTo(1);
    assertThat(fenced.ok()).as("the held op itself is exempt from the latency bound").isTrue();
  }

  /**
   * Regression: the first judge counted any write acknowledged during the paused operation,
   * including those made while it was still waiting for the lock, before its read; its later
   * unrefused write was then reported as a stale write past the fence. Only writes after the
   * paused read count.
   */
  @Test
  void aWriteAcknowledgedBeforeThePausedReadDoesNotMakeItsWriteStale() {
    Op held = new Op("h", Load.COUNTER, "mongo-lock", "holder", Outcome.ACK, 1_000,
        10_000_000_000L, 1, 0, true, "read=5000 token=7");
    Op before = new Op("o", Load.COUNTER, "mongo-lock", "coord", Outcome.ACK, 2_000,
        2_000_000_000L, 1, 0, false, "token=6");
    ChaosRow row = checker.check("pause", Load.COUNTER, "mongo-lock", List.of(held, before),
        new FinalState(Map.of("h", 1, "o", 1), List.of(1L, 1L), LedgerOps.INITIAL_BALANCE + 2),
        null, List.of());
    assertThat(row.stalePassed()).isZero();
    assertThat(row.examples()).anyMatch(e -> e.contains("not exercised"));
    assertThat(row.ok()).isTrue();

    Op after = new Op("p", Load.COUNTER, "mongo-lock", "coord", Outcome.ACK, 5_500,
        1_000_000_000L, 1, 0, false, "token=8");
    ChaosRow stale = checker.check("pause", Load.COUNTER, "mongo-lock",
        List.of(held, before, after), new FinalState(Map.of("h", 1, "o", 1, "p", 1),
            List.of(1L, 1L, 1L), LedgerOps.INITIAL_BALANCE + 3), null, List.of());
    assertThat(stale.stalePassed()).as("a write after the paused read, and no refusal").isOne();
  }

  @Test
  void aWaitPastItsBoundIsFlagged() {
    long tooLong = SETTINGS.bound("atomic").plusMillis(1).toNanos();
    ChaosRow row = check(List.of(new Op("a", Load.READINFO, "atomic", "coord", Outcome.UNKNOWN,
        0, tooLong, 0, 0, false, "")), marks());
    assertThat(row.overBound()).isEqualTo(1);
    assertThat(row.ok()).isFalse();
  }

  @Test
  void noRecoveryWithinTheBoundIsFlagged() {
    Op late = new Op("a", Load.READINFO, "atomic", "coord", Outcome.ACK, 2_000, 9_000_000_000L,
        0, 0, false, "");
    ChaosRow row = checker.check("f", Load.READINFO, "atomic", List.of(late), marks("a"),
        new Recovery(2_000, 5_000, ""), List.of());
    assertThat(row.recoveryMillis()).isEqualTo(9_000);
    assertThat(row.ok()).isFalse();

    Op failedOnly = new Op("b", Load.READINFO, "atomic", "coord", Outcome.FAIL, 2_000, 1_000,
        0, 0, false, "");
    ChaosRow never = checker.check("f", Load.READINFO, "atomic", List.of(failedOnly), marks(),
        new Recovery(2_000, 5_000, ""), List.of());
    assertThat(never.recoveryMillis()).isEqualTo(Long.MAX_VALUE);
    assertThat(never.ok()).isFalse();
  }

  @Test
  void aGracefulStopThatCutsAnInFlightRequestOrAcceptsLateOnesIsFlagged() {
    long term = 10_000;
    Op cut = new Op("victim-1", Load.READINFO, "atomic", "victim", Outcome.UNKNOWN, 9_000,
        2_000_000_000L, 0, 0, false, "io=java.io.IOException: reset");
    Op finished = new Op("victim-2", Load.READINFO, "atomic", "victim", Outcome.ACK, 9_000,
        2_000_000_000L, 0, 0, false, "status=200 {}");
    Op acceptedLate = new Op("victim-3", Load.READINFO, "atomic", "victim", Outcome.ACK,
        12_000, 1_000_000, 0, 0, false, "status=200 {}");
    Op refused = new Op("victim-4", Load.READINFO, "atomic", "victim", Outcome.FAIL, 12_000,
        1_000_000, 0, 0, false, "status=503 retry-after=1 shutting down");
    assertThat(Faults.gracefulStopViolations(List.of(cut, finished, acceptedLate, refused), term))
        .hasSize(2)
        .anyMatch(v -> v.contains("victim-1") && v.contains("cut"))
        .anyMatch(v -> v.contains("victim-3"));
  }

  @Test
  void opLinesRoundTrip() {
    Op op = new Op("holder-3", Load.COUNTER, "redis-lock", "holder", Outcome.FAIL, 123, 456, -4,
        2, true, "StaleLockException: refused\tby the fence");
    Op parsed = Op.parse(op.toLine());
    assertThat(parsed).isEqualTo(op);
    assertThat(Op.parse("HOLDING")).isNull();
  }
}
