package io.writeguard.update;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.writeguard.testing.Gen;
import io.writeguard.testing.Generated;
import io.writeguard.testing.PropertyTest;
import java.time.Duration;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RetryPolicyTest {

  @Test
  void defaultsAreBounded() {
    RetryPolicy p = RetryPolicy.defaults();
    assertThat(p.maxAttempts()).isEqualTo(10);
    assertThat(p.deadline()).isEqualTo(Duration.ofSeconds(5));
    assertThat(p.baseBackoff()).isEqualTo(Duration.ofMillis(5));
    assertThat(p.maxBackoff()).isEqualTo(Duration.ofMillis(500));
    assertThat(p.retryTransientErrors()).isTrue();
    assertThat(p.toBuilder().build().toString()).isEqualTo(p.toString());
  }

  @Test
  void builderNamesTheBadValue() {
    assertThatThrownBy(() -> RetryPolicy.builder().maxAttempts(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxAttempts must be >= 1, was 0");
    assertThatThrownBy(() -> RetryPolicy.builder().deadline(Duration.ZERO))
        .hasMessage("deadline must be positive, was PT0S");
    assertThatThrownBy(() -> RetryPolicy.builder().deadline(Duration.ofDays(1)))
        .hasMessage("deadline must be <= PT1H, was PT24H");
    assertThatThrownBy(() -> RetryPolicy.builder().backoff(Duration.ofMillis(-1), Duration.ZERO))
        .hasMessage("baseBackoff must not be negative, was PT-0.001S");
    assertThatThrownBy(
            () -> RetryPolicy.builder().backoff(Duration.ofMillis(10), Duration.ofMillis(5)))
        .hasMessage("maxBackoff must be >= baseBackoff (PT0.01S), was PT0.005S");
  }

  @Test
  void capDoublesFromTheBaseAndStopsAtTheMax() {
    RetryPolicy p = RetryPolicy.builder()
        .backoff(Duration.ofMillis(10), Duration.ofMillis(100)).build();
    assertThat(p.backoffCap(1)).isEqualTo(Duration.ofMillis(10));
    assertThat(p.backoffCap(2)).isEqualTo(Duration.ofMillis(20));
    assertThat(p.backoffCap(3)).isEqualTo(Duration.ofMillis(40));
    assertThat(p.backoffCap(4)).isEqualTo(Duration.ofMillis(80));
    assertThat(p.backoffCap(5)).isEqualTo(Duration.ofMillis(100));
    assertThat(p.backoffCap(64)).isEqualTo(Duration.ofMillis(100));
    assertThat(p.backoffCap(Integer.MAX_VALUE)).isEqualTo(Duration.ofMillis(100));
    assertThatThrownBy(() -> p.backoffCap(0)).hasMessage("retry must be >= 1, was 0");
  }

  @Test
  void zeroBaseMeansNoBackoff() {
    RetryPolicy p = RetryPolicy.builder().backoff(Duration.ZERO, Duration.ZERO).build();
    assertThat(p.backoff(1, new Random(1))).isZero();
    assertThat(p.backoff(40, new Random(1))).isZero();
  }

  @PropertyTest
  @MethodSource("retriesSeedsAndBases")
  void fullJitterStaysWithinZeroAndTheCap(int retry, long seed, Duration base) {
    RetryPolicy p = RetryPolicy.builder().backoff(base, Duration.ofSeconds(2)).build();
    Duration backoff = p.backoff(retry, new Random(seed));
    assertThat(backoff).isBetween(Duration.ZERO, p.backoffCap(retry));
  }

  /** Bases from 1 us to 1 s at nanosecond resolution, under a 2 s maximum. */
  static Stream<Arguments> retriesSeedsAndBases() {
    return Generated.tuples(
        Gen.ints(1, 200),
        Gen.longs(Long.MIN_VALUE, Long.MAX_VALUE),
        Gen.durations(Duration.ofNanos(1000), Duration.ofSeconds(1)));
  }

  @Test
  void fullJitterSpreadsOverTheWholeWindow() {
    RetryPolicy p = RetryPolicy.builder()
        .backoff(Duration.ofMillis(100), Duration.ofMillis(100)).build();
    Random random = new Random(42);
    long below10 = 0;
    long above90 = 0;
    Set<Long> distinct = new HashSet<>();
    for (int i = 0; i < 2_000; i++) {
      long ms = p.backoff(1, random).toMillis();
      distinct.add(ms);
      below10 += ms < 10 ? 1 : 0;
      above90 += ms >= 90 ? 1 : 0;
    }
    // Uniform on [0, 100ms]: each tenth gets about 200 of 2000; both ends are reached.
    assertThat(below10).isBetween(100L, 300L);
    assertThat(above90).isBetween(100L, 300L);
    assertThat(distinct.size()).isGreaterThan(90);
  }
}
