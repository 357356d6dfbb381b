package io.writeguard.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.testing.FakeTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConflictWindowTest {
  private final FakeTime time = new FakeTime();
  private final ConflictWindow window = new ConflictWindow(Duration.ofSeconds(10), 10, time.ticker());

  @Test
  void ratioIsConflictsOverAttemptsInsideTheWindow() {
    for (int i = 0; i < 10; i++) {
      window.recordAttempt();
    }
    window.recordConflict();
    window.recordConflict();
    assertThat(window.attempts()).isEqualTo(10);
    assertThat(window.ratio()).isEqualTo(0.2);
  }

  @Test
  void oldBucketsSlideOutOfTheWindow() {
    window.recordAttempt();
    window.recordConflict();
    time.advance(Duration.ofSeconds(6));
    for (int i = 0; i < 3; i++) {
      window.recordAttempt();
    }
    assertThat(window.ratio()).isEqualTo(0.25);
    time.advance(Duration.ofSeconds(5)); // the first second is now more than 10 s old
    assertThat(window.attempts()).isEqualTo(3);
    assertThat(window.ratio()).isZero();
    time.advance(Duration.ofSeconds(10));
    assertThat(window.attempts()).isZero();
  }

  @Test
  void aReusedBucketStartsFromZero() {
    window.recordConflict();
    window.recordAttempt();
    time.advance(Duration.ofSeconds(10)); // same ring slot, next lap
    window.recordAttempt();
    assertThat(window.attempts()).isEqualTo(1);
    assertThat(window.conflicts()).isZero();
  }
}
