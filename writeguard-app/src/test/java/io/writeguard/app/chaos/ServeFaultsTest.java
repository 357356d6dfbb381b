package io.writeguard.app.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.app.chaos.Op.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the serve faults hold a stopped serve JVM to, checked on hand-made histories. */
class ServeFaultsTest {
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
    assertThat(
        ServeFaults.gracefulStopViolations(List.of(cut, finished, acceptedLate, refused), term))
        .hasSize(2)
        .anyMatch(v -> v.contains("victim-1") && v.contains("cut"))
        .anyMatch(v -> v.contains("victim-3"));
  }
}
