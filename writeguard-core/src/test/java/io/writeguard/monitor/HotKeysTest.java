package io.writeguard.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class HotKeysTest {

  @Test
  void findsTheHeavyHittersAmongManyDistinctKeysInBoundedMemory() {
    HotKeys hot = new HotKeys(16);
    Random random = new Random(7);
    for (int i = 0; i < 200_000; i++) {
      int r = random.nextInt(100);
      if (r < 20) {
        hot.record("hot-a");
      } else if (r < 30) {
        hot.record("hot-b");
      } else {
        hot.record("cold-" + random.nextInt(1_000_000));
      }
    }
    assertThat(hot.size()).isLessThanOrEqualTo(16);
    assertThat(hot.top(2)).extracting(HotKeys.Entry::key).containsExactly("hot-a", "hot-b");
    HotKeys.Entry a = hot.top(1).get(0);
    // Space-Saving over-estimates by at most the recorded error.
    assertThat(a.count() - a.error()).isLessThanOrEqualTo(40_000 + 2_000).isPositive();
  }

  @Test
  void exactWhileUnderCapacity() {
    HotKeys hot = new HotKeys(4);
    hot.record("x");
    hot.record("x");
    hot.record("y");
    assertThat(hot.top(5)).containsExactly(new HotKeys.Entry("x", 2, 0), new HotKeys.Entry("y", 1, 0));
  }
}
