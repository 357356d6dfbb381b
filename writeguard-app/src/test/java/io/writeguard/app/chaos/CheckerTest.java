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

  /** The judge of the first full run (at commit af1ee1b), to show what it flagged. */
  private static boolean firstJudgeFlags(Op held, List<Op> ops) {
    boolean otherWrote = ops.stream().anyMatch(o -> !o.held() && o.outcome() == Outcome.ACK
        && o.startMillis() > held.startMillis() && o.endMillis() < held.endMillis());
    return held.outcome() != Outcome.UNKNOWN && otherWrote && held.fencedRejections() == 0;
  }

  private ChaosRow checkPausedCounter(List<Op> ops, Map<String, Integer> applied,
      List<Long> ledger) {
    long balance = LedgerOps.INITIAL_BALANCE + ledger.stream().mapToLong(Long::longValue).sum();
    return checker.check("pause", Load.COUNTER, "mongo-lock", ops,
        new FinalState(applied, ledger, balance), null, List.of());
  }

  /**
   * The flag of the first full run ({@code pause / counter / mongo-lock}, a stale write past
   * the fence with {@code lost 0}) in the history shapes that run could produce, none of them a
   * stale write: the paused holder claims at 5000 ms, is stopped until 10000 ms, and a
   * coordinator takes over after the lease and writes at 7400 ms (2.4 s into the pause).
   * <ol>
   *   <li>The paused operation was then a random debit (55 %): refused on the balance it read
   *       before the pause, nothing written, no fenced rejection. The first judge ignored the
   *       outcome, so any paused operation without a rejection was "past the fence";
   *   <li>the paused operation was acknowledged without a rejection: then no acknowledged
   *       write can have been applied between its claim and its replace, or its replace (the
   *       document read plus one entry) would have erased it and the row would show it lost;
   *       the write the first judge saw was acknowledged while the paused operation still
   *       waited for the lock, before its read;
   *   <li>as 2, but that write's acknowledgement is taken just after the paused read (its
   *       release let the paused operation in): only its lower token tells it apart.
   * </ol>
   */
  @Test
  void theFirstFullRunsStaleFlagCameFromTheJudgeNotFromTheFence() {
    Op debitRefused = new Op("h", Load.COUNTER, "mongo-lock", "holder", Outcome.FAIL, 1_000,
        10_000_000_000L, -3, 0, true, "read=5000 readToken=7 Refused: debit h of 3 refused");
    Op takeover = new Op("o", Load.COUNTER, "mongo-lock", "coord", Outcome.ACK, 7_300,
        100_000_000L, 2, 0, false, "token=40");
    assertThat(firstJudgeFlags(debitRefused, List.of(debitRefused, takeover))).isTrue();
    ChaosRow refusedRow = checkPausedCounter(List.of(debitRefused, takeover), Map.of("o", 1),
        List.of(2L));
    assertThat(refusedRow.stalePassed()).isZero();
    assertThat(refusedRow.lost()).isZero();
    assertThat(refusedRow.ok()).isTrue();

    Op acked = new Op("h", Load.COUNTER, "mongo-lock", "holder", Outcome.ACK, 1_000,
        10_000_000_000L, 1, 0, true, "read=5000 readToken=7 token=7");
    Op duringTheLockWait = new Op("w", Load.COUNTER, "mongo-lock", "coord", Outcome.ACK, 2_000,
        2_000_000_000L, 2, 0, false, "token=6");
    assertThat(firstJudgeFlags(acked, List.of(acked, duringTheLockWait))).isTrue();
    ChaosRow ackedRow = checkPausedCounter(List.of(acked, duringTheLockWait),
        Map.of("h", 1, "w", 1), List.of(2L, 1L));
    assertThat(ackedRow.stalePassed()).isZero();
    assertThat(ackedRow.ok()).isTrue();

    Op ackedJustAfterTheRead = new Op("w", Load.COUNTER, "mongo-lock", "coord", Outcome.ACK,
        4_900, 120_000_000L, 2, 0, false, "token=6");
    ChaosRow raceRow = checkPausedCounter(List.of(acked, ackedJustAfterTheRead),
        Map.of("h", 1, "w", 1), List.of(2L, 1L));
    assertThat(raceRow.stalePassed()).as("token 6 held the lock before the read with 7").isZero();
    assertThat(raceRow.ok()).isTrue();
  }

  /**
   * A real bypass still fails the row: the paused holder (token 7) is acknowledged without a
   * refusal after a newer holder's write (token 40) was acknowledged 2.4 s into the pause. Its
   * replace erased that write (lost), and even where nothing was erased (a {@code $push}
   * form), the unrefused write after a newer token's acknowledged write is flagged.
   */
  @Test
  void aStaleTokensWriteAcknowledgedAfterANewerTokensWriteIsFlagged() {
    Op stale = new Op("h", Load.COUNTER, "mongo-lock", "holder", Outcome.ACK, 1_000,
        10_000_000_000L, 1, 0, true, "read=5000 readToken=7 token=7");
    Op newer = new Op("o", Load.COUNTER, "mongo-lock", "coord", Outcome.ACK, 7_300,
        100_000_000L, 2, 0, false, "token=40");
    ChaosRow erased = checkPausedCounter(List.of(stale, newer), Map.of("h", 1), List.of(1L));
    assertThat(erased.stalePassed()).isOne();
    assertThat(erased.lost()).isOne();
    assertThat(erased.examples()).contains("lost o", "stale write passed the fence: h");
    assertThat(erased.ok()).isFalse();

    ChaosRow kept = checkPausedCounter(List.of(stale, newer), Map.of("h", 1, "o", 1),
        List.of(2L, 1L));
    assertThat(kept.lost()).isZero();
    assertThat(kept.stalePassed()).isOne();
    assertThat(kept.ok()).isFalse();
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
  void opLinesRoundTrip() {
    Op op = new Op("holder-3", Load.COUNTER, "redis-lock", "holder", Outcome.FAIL, 123, 456, -4,
        2, true, "StaleLockException: refused\tby the fence");
    Op parsed = Op.parse(op.toLine());
    assertThat(parsed).isEqualTo(op);
    assertThat(Op.parse("HOLDING")).isNull();
  }
}
