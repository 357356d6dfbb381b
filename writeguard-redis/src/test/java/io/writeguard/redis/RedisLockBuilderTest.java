package io.writeguard.redis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Bad settings fail at build time, naming the setting and the value; no server needed. */
class RedisLockBuilderTest {

  private static RedisLockService.Builder valid() {
    return RedisLockService.builder().uri("redis://127.0.0.1:1");
  }

  @Test
  void needsExactlyOneWayToConnect() {
    assertThatThrownBy(() -> RedisLockService.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("exactly one of client, uri, clusterClient or clusterUris must be set, was none");
    assertThatThrownBy(() -> valid().clusterUris("redis://127.0.0.1:2").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageEndingWith("was uri and clusterUris");
  }

  @Test
  void refusesBadClusterUrisNamingTheOneAtFault() {
    assertThatThrownBy(() -> RedisLockService.builder().clusterUris().build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("clusterUris must name at least one node, was empty");
    assertThatThrownBy(() -> RedisLockService.builder().clusterUris("redis://127.0.0.1:7000", "http://x:1").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("clusterUris[1] is not a Redis URI, was 'http://x:1'");
    assertThatThrownBy(() -> RedisLockService.builder().clusterUris("redis://127.0.0.1:7000", null).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("clusterUris[1] must not be null");
    assertThatThrownBy(() -> RedisLockService.builder().clusterUris("redis-sentinel://127.0.0.1:26379#m").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("clusterUris[0] must be a cluster node").hasMessageContaining("'redis-sentinel://127.0.0.1:26379#m'");
  }

  @Test
  void refusesAPrefixWithBracesThatWouldBreakTheHashTag() {
    assertThatThrownBy(() -> valid().keyPrefix("wg:{lock}:").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("keyPrefix must not contain '{' or '}'").hasMessageEndingWith("was 'wg:{lock}:'");
  }

  @Test
  void refusesABadUri() {
    assertThatThrownBy(() -> RedisLockService.builder().uri("http://nope").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'http://nope'");
  }

  @Test
  void refusesNonPositiveLeases() {
    assertThatThrownBy(() -> valid().lease(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease must be positive, was PT0S");
    assertThatThrownBy(() -> valid().lease(Duration.ofNanos(10)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease must be at least 1ms");
  }

  @Test
  void refusesARenewIntervalNotShorterThanTheLease() {
    assertThatThrownBy(() -> valid().lease(Duration.ofSeconds(5)).renewInterval(Duration.ofSeconds(5)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("renewInterval must be shorter than the lease (PT5S), was PT5S");
    assertThatThrownBy(() -> valid().renewInterval(Duration.ofSeconds(-1)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("renewInterval must be positive, was PT-1S");
  }

  @Test
  void refusesBlankPrefixOrOwnerAndNonPositiveLimits() {
    assertThatThrownBy(() -> valid().keyPrefix(" ").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix must not be blank, was ' '");
    assertThatThrownBy(() -> valid().owner("").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("owner must not be blank");
    assertThatThrownBy(() -> valid().maxKeyLength(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxKeyLength must be >= 1, was 0");
    assertThatThrownBy(() -> valid().fallbackRecheck(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fallbackRecheck must be positive");
    assertThatThrownBy(() -> valid().commandTimeout(Duration.ofMillis(-1)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("commandTimeout must be positive");
    assertThatThrownBy(() -> valid().handoffBatch(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("handoffBatch must be >= 1, was 0");
    assertThatThrownBy(() -> valid().handoffSlice(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("handoffSlice must be positive");
    assertThatThrownBy(() -> valid().lease(Duration.ofSeconds(2)).renewInterval(Duration.ofMillis(500))
        .handoffSlice(Duration.ofMillis(1001)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("handoffSlice must be at most half the lease")
        .hasMessageContaining("PT1.001S").hasMessageContaining("PT2S");
  }
}
