package io.writeguard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.writeguard.testing.Gen;
import io.writeguard.testing.Generated;
import io.writeguard.testing.PropertyTest;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.MethodSource;

class ChecksTest {

  @Test
  void namesTheParameterAndTheValue() {
    assertThatThrownBy(() -> Checks.atLeast("maxAttempts", 0, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxAttempts must be >= 1, was 0");
    assertThatThrownBy(() -> Checks.positive("lease", Duration.ZERO))
        .hasMessage("lease must be positive, was PT0S");
    assertThatThrownBy(() -> Checks.notBlank("key", " "))
        .hasMessage("key must not be blank, was ' '");
    assertThatThrownBy(() -> Checks.notBelow("max", Duration.ofSeconds(1), "min", Duration.ofSeconds(2)))
        .hasMessage("max must be >= min (PT2S), was PT1S");
    assertThat(Checks.notBelow("max", Duration.ofSeconds(2), "min", Duration.ofSeconds(2)))
        .isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void aMissingDurationIsANullPointerNamingIt() {
    assertThatThrownBy(() -> Checks.positive("lease", null))
        .isExactlyInstanceOf(NullPointerException.class).hasMessage("lease must not be null");
    assertThatThrownBy(() -> Checks.notNegative("maxWait", null))
        .isExactlyInstanceOf(NullPointerException.class).hasMessage("maxWait must not be null");
    assertThat(Checks.notNegative("maxWait", Duration.ZERO)).isEqualTo(Duration.ZERO);
  }

  @PropertyTest
  @MethodSource("positiveInts")
  void acceptsEveryValueAtOrAboveTheMinimum(int value) {
    assertThat(Checks.atLeast("n", value, 1)).isEqualTo(value);
  }

  @PropertyTest
  @MethodSource("nonPositiveInts")
  void rejectsEveryValueBelowTheMinimumAndNamesIt(int value) {
    assertThatThrownBy(() -> Checks.atLeast("n", value, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("n must be >= 1, was " + value);
  }

  static Stream<Named<Integer>> positiveInts() {
    return Generated.cases(Gen.ints(1, Integer.MAX_VALUE));
  }

  static Stream<Named<Integer>> nonPositiveInts() {
    return Generated.cases(Gen.ints(Integer.MIN_VALUE, 0));
  }
}
