package io.writeguard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.writeguard.testing.Gen;
import io.writeguard.testing.Generated;
import io.writeguard.testing.PropertyTest;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class BackoffTest {

  @Test
  void doublesFromTheBaseUntilTheCap() {
    Backoff b = Backoff.exponential(Duration.ofMillis(10), Duration.ofMillis(100));
    assertThat(b.ceiling(1)).isEqualTo(Duration.ofMillis(10));
    assertThat(b.ceiling(2)).isEqualTo(Duration.ofMillis(20));
    assertThat(b.ceiling(3)).isEqualTo(Duration.ofMillis(40));
    assertThat(b.ceiling(4)).isEqualTo(Duration.ofMillis(80));
    assertThat(b.ceiling(5)).isEqualTo(Duration.ofMillis(100));
    assertThat(b.ceiling(6)).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void hugeAttemptNumbersStayAtTheCapWithoutOverflow() {
    Backoff b = Backoff.exponential(Duration.ofMillis(7), Duration.ofHours(1));
    for (int attempt : new int[] {31, 32, 62, 63, 64, 65, 1000, Integer.MAX_VALUE}) {
      assertThat(b.ceiling(attempt)).as("attempt %d", attempt).isEqualTo(Duration.ofHours(1));
    }
    Backoff widest = Backoff.exponential(Duration.ofNanos(1), Duration.ofNanos(Long.MAX_VALUE));
    assertThat(widest.ceilingNanos(63)).isEqualTo(1L << 62);
    assertThat(widest.ceilingNanos(64)).isEqualTo(Long.MAX_VALUE);
    assertThat(widest.ceilingNanos(Integer.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void attemptsBelowOneCountAsTheFirst() {
    Backoff b = Backoff.exponential(Duration.ofMillis(10), Duration.ofMillis(100));
    assertThat(b.ceiling(0)).isEqualTo(Duration.ofMillis(10));
    assertThat(b.ceiling(Integer.MIN_VALUE)).isEqualTo(Duration.ofMillis(10));
  }

  @Test
  void aBaseAboveTheCapIsCappedAndAZeroBaseNeverWaits() {
    assertThat(Backoff.exponential(Duration.ofSeconds(2), Duration.ofSeconds(1)).ceiling(1))
        .isEqualTo(Duration.ofSeconds(1));
    Backoff none = Backoff.exponential(Duration.ZERO, Duration.ofSeconds(1));
    assertThat(none.ceilingNanos(40)).isZero();
    assertThat(none.fullJitterNanos(40, new Random(1))).isZero();
    assertThat(none.equalJitterNanos(40, new Random(1))).isZero();
  }

  @Test
  void rejectsNegativeBoundsByName() {
    assertThatThrownBy(() -> Backoff.exponential(Duration.ofMillis(-1), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("base");
    assertThatThrownBy(() -> Backoff.exponential(Duration.ZERO, Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max");
  }

  @Test
  void jitterReachesBothEndsOfItsWindow() {
    Backoff b = Backoff.exponential(Duration.ofNanos(3), Duration.ofNanos(3));
    Random random = new Random(42);
    boolean fullLow = false;
    boolean fullHigh = false;
    boolean equalLow = false;
    boolean equalHigh = false;
    for (int i = 0; i < 1000; i++) {
      long full = b.fullJitterNanos(1, random);
      long equal = b.equalJitterNanos(1, random);
      fullLow |= full == 0;
      fullHigh |= full == 3;
      equalLow |= equal == 1;
      equalHigh |= equal == 3;
    }
    assertThat(new boolean[] {fullLow, fullHigh, equalLow, equalHigh}).containsOnly(true);
  }

  @PropertyTest
  @MethodSource("bounds")
  void theCeilingIsTheExactCappedPowerAndJitterStaysInsideIt(long base, long max, int attempt,
      long seed) {
    Backoff b = Backoff.exponential(Duration.ofNanos(base), Duration.ofNanos(max));
    int doublings = attempt <= 1 ? 0 : Math.min(attempt - 1, 200);
    BigInteger exact = BigInteger.valueOf(base).shiftLeft(doublings);
    long expected = exact.min(BigInteger.valueOf(max)).longValueExact();
    long ceiling = b.ceilingNanos(attempt);
    assertThat(ceiling).isEqualTo(expected);
    Random random = new Random(seed);
    assertThat(b.fullJitterNanos(attempt, random)).isBetween(0L, ceiling);
    assertThat(b.equalJitterNanos(attempt, random)).isBetween(ceiling / 2, ceiling);
  }

  static Stream<Arguments> bounds() {
    return Generated.tuples(
        Gen.oneOf(Gen.longs(0, 1_000_000), Gen.longs(0, Long.MAX_VALUE)),
        Gen.oneOf(Gen.longs(0, 1_000_000_000_000L), Gen.longs(0, Long.MAX_VALUE)),
        Gen.oneOf(Gen.ints(-2, 80), Gen.ints(Integer.MIN_VALUE, Integer.MAX_VALUE)),
        Gen.longs(Long.MIN_VALUE, Long.MAX_VALUE));
  }
}
