package io.writeguard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

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
  }

  @Property
  void acceptsEveryValueAtOrAboveTheMinimum(@ForAll @IntRange(min = 1) int value) {
    assertThat(Checks.atLeast("n", value, 1)).isEqualTo(value);
  }
}
