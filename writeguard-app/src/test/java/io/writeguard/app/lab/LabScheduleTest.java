package io.writeguard.app.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.app.lab.plan.LabSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The plan of a whole run and its estimate of the time left. */
class LabScheduleTest {
  private static final long S = 1_000_000_000L;

  private static LabSettings timed(int rounds) {
    return LabSettings.timed(16, 4, 42, Duration.ofSeconds(3), Duration.ofMillis(1500))
        .withRounds(rounds);
  }

  @Test
  void sevenStrategiesPlanTheirLeastWarmUpAndTheirRounds() {
    LabSchedule schedule = new LabSchedule(timed(3), 7, 1); // 3 slices of 0.5 s each

    assertThat(schedule.measuredRounds()).isEqualTo(21);
    assertThat(schedule.planned()).contains(Duration.ofMillis(7 * 1500 + 21 * 3000));
    assertThat(schedule.timeLeftNanos(true, 0)).isEqualTo(73_500_000_000L);
    assertThat(schedule.timeLeftNanos()).isEqualTo(73_500_000_000L);
  }

  @Test
  void phasesThatTookLongerThanPlannedStretchTheEstimateOfTheRest() {
    LabSchedule schedule = new LabSchedule(timed(2), 2, 1); // 2 x 3 warm-up slices, 4 rounds
    for (int i = 0; i < 6; i++) {
      schedule.finished(true, 2 * S); // a 0.5 s slice took 2 s with its set-up
    }
    assertThat(schedule.timeLeftNanos()).isEqualTo(4 * 3 * S); // no round measured yet

    schedule.finished(false, 5 * S); // a 3 s round took 5 s
    assertThat(schedule.timeLeftNanos()).isEqualTo(3 * 5 * S);
    assertThat(schedule.timeLeftNanos(false, 1 * S)).isEqualTo(2 * 5 * S + 4 * S);
    assertThat(schedule.timeLeftNanos(false, 9 * S)).isEqualTo(2 * 5 * S); // overdue: not < 0
  }

  @Test
  void warmUpSlicesAddedWhileAStrategyStillRisesLengthenTheEstimate() {
    LabSettings s = LabSettings.timed(16, 4, 42, Duration.ofSeconds(3), Duration.ofSeconds(5))
        .withRounds(3);
    LabSchedule schedule = new LabSchedule(s, 7, 1); // at least 3 slices of 1 s each

    assertThat(schedule.planned()).contains(Duration.ofSeconds(7 * 3 + 21 * 3));
    schedule.moreWarmups(3);
    assertThat(schedule.timeLeftNanos()).isEqualTo((7 * 3 + 3) * S + 21 * 3 * S);
  }

  @Test
  void roundsCountedByOperationsHaveNoEstimateUntilOneFinished() {
    LabSettings counted = LabSettings.counted(4, 1, 42, 1_000, Duration.ZERO).withRounds(3);
    LabSchedule schedule = new LabSchedule(counted, 2, 2); // two client counts

    assertThat(schedule.measuredRounds()).isEqualTo(12);
    assertThat(schedule.planned()).isEmpty();
    assertThat(schedule.timeLeftNanos(false, S)).isNegative();

    schedule.finished(false, 2 * S);
    assertThat(schedule.timeLeftNanos()).isEqualTo(11 * 2 * S);
  }

  @Test
  void aStepSaysWhichStrategyOfHowManyAndTheTimeLeftWhenItKnows() {
    LabStep step = new LabStep("atomic", 16, 2, 3, 2, 7, -1);

    assertThat(step.placeInRun()).isEqualTo("strategy 2 of 7");
    assertThat(step.withTimeLeft(65 * S).placeInRun()).isEqualTo("strategy 2 of 7, about 1m05s left");
    assertThat(new LabStep("atomic", 16, 2, 3).placeInRun()).isEmpty();
    assertThat(LabSchedule.format(45 * S)).isEqualTo("45s");
    assertThat(LabSchedule.format(3_720 * S)).isEqualTo("1h02m");
  }
}
