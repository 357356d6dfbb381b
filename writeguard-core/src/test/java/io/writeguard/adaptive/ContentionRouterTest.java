package io.writeguard.adaptive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.writeguard.testing.FakeTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ContentionRouterTest {
  private final FakeTime time = new FakeTime();
  private final AdaptivePolicy policy = AdaptivePolicy.builder()
      .minAttempts(10)
      .lockedTime(Duration.ofSeconds(1), Duration.ofSeconds(4))
      .maxTrackedKeys(100)
      .build();
  private final ContentionRouter router = new ContentionRouter(policy, time.ticker());

  private void conflicted(String key, int updates, int attemptsEach) {
    for (int i = 0; i < updates; i++) {
      router.recordOptimistic(key, attemptsEach);
    }
  }

  private void lockedUpdates(String key, int updates, boolean contended) {
    for (int i = 0; i < updates; i++) {
      router.lockedStarted(key);
      if (contended) {
        router.lockedStarted(key); // a second update of the key already in flight
        router.lockedDone(key);
      }
      router.lockedDone(key);
    }
  }

  @Test
  void quietKeysStayOptimisticAndCostNothing() {
    for (int i = 0; i < 1_000; i++) {
      router.recordOptimistic("doc-" + i, 1);
    }
    assertThat(router.route("doc-5")).isEqualTo(Route.OPTIMISTIC);
    assertThat(router.trackedKeys()).isZero();
  }

  @Test
  void aHotKeyIsLockedWhileItsNeighboursStayOptimistic() {
    conflicted("hot", 10, 3); // 30 attempts, 20 conflicts
    router.recordOptimistic("cold", 2);
    assertThat(router.route("hot")).isEqualTo(Route.LOCKED);
    assertThat(router.route("cold")).isEqualTo(Route.OPTIMISTIC);
  }

  @Test
  void aFewConflictsBelowTheMinimumDoNotSwitch() {
    conflicted("k", 2, 3); // 6 attempts < 10
    assertThat(router.route("k")).isEqualTo(Route.OPTIMISTIC);
  }

  @Test
  void aContendedKeyStaysLockedPastItsHoldAndACalmOneGoesBack() {
    conflicted("k", 10, 3);
    time.advance(Duration.ofMillis(1_100));
    lockedUpdates("k", 20, true);
    assertThat(router.route("k")).as("still contended").isEqualTo(Route.LOCKED);
    lockedUpdates("k", 20, false);
    time.advance(Duration.ofMillis(1_100));
    assertThat(router.route("k")).as("calm after the hold").isEqualTo(Route.OPTIMISTIC);
  }

  @Test
  void aRelapseDoublesTheHoldUpToTheMaximum() {
    conflicted("k", 10, 3);
    time.advance(Duration.ofMillis(1_001));
    assertThat(router.route("k")).isEqualTo(Route.OPTIMISTIC);
    conflicted("k", 10, 3); // hot again at once: hold 2 s
    time.advance(Duration.ofMillis(1_500));
    assertThat(router.route("k")).isEqualTo(Route.LOCKED);
    time.advance(Duration.ofMillis(600));
    assertThat(router.route("k")).isEqualTo(Route.OPTIMISTIC);
    conflicted("k", 10, 3); // hold 4 s (the maximum)
    conflicted("k", 0, 0);
    time.advance(Duration.ofMillis(3_900));
    assertThat(router.route("k")).isEqualTo(Route.LOCKED);
    time.advance(Duration.ofMillis(200));
    assertThat(router.route("k")).isEqualTo(Route.OPTIMISTIC);
    conflicted("k", 10, 3);
    time.advance(Duration.ofMillis(4_100));
    assertThat(router.route("k")).as("capped at 4 s").isEqualTo(Route.OPTIMISTIC);
  }

  @Test
  void trackedKeysStayBounded() {
    for (int i = 0; i < 5_000; i++) {
      router.recordOptimistic("doc-" + i, 2);
    }
    assertThat(router.trackedKeys()).isLessThanOrEqualTo(100);
  }

  @Test
  void badPolicyValuesAreNamed() {
    assertThatThrownBy(() -> AdaptivePolicy.builder().lockedTime(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessage("maxLockedTime must be >= minLockedTime (PT2S), was PT1S");
    assertThatThrownBy(() -> AdaptivePolicy.builder().minAttempts(0))
        .hasMessage("minAttempts must be >= 1, was 0");
  }
}
