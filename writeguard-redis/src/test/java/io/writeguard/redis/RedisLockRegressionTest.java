package io.writeguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.writeguard.lock.LockHandle;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Regression tests for bugs found in review of the Redis lock. */
class RedisLockRegressionTest {
  private static RedisClient client;
  private final String prefix = "wgreg:" + UUID.randomUUID().toString().substring(0, 8) + ":";

  @BeforeAll
  static void connect() {
    client = RedisClient.create(TestRedis.uri());
  }

  @AfterAll
  static void disconnect() {
    client.shutdown();
  }

  /**
   * Pinned while reviewing (not a bug: Lettuce fails the release's future, it does not throw):
   * a handle closed after its service closed does not throw and counts as released; the closed
   * service then refuses new acquires plainly (as the MongoDB one always did), never "busy".
   */
  @Test
  void closingAHandleAfterItsServiceClosedStillPassesTheLocalTurnOn() {
    RedisLockService locks = RedisLockService.builder().client(client).keyPrefix(prefix).build();
    LockHandle held = locks.acquire("k", Duration.ofSeconds(5));
    locks.close();
    assertThatCode(held::close).doesNotThrowAnyException();
    assertThat(held.isReleased()).isTrue();
    assertThatThrownBy(() -> locks.tryAcquire("k")).as("closed, not busy")
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
  }

  /** A wait timeout too long for a long of nanoseconds waits "forever", like the local lock. */
  @Test
  void aHugeWaitTimeoutIsAcceptedLikeTheLocalLock() {
    RedisLockService locks = RedisLockService.builder().client(client).keyPrefix(prefix).build();
    try {
      assertThatCode(() -> locks.acquire("huge", Duration.ofDays(365L * 1000)).close())
          .doesNotThrowAnyException();
    } finally {
      locks.close();
    }
  }

  /**
   * Regression (review of the engine): two services with the same owner id both counted attempt
   * ids from 1, so the second one's take found "owner:1" as the holder, took it for its own
   * resent take and got the same block of tokens: two holders with equal fencing tokens.
   */
  @Test
  void twoServicesWithTheSameOwnerIdNeverBothHoldAKey() {
    RedisLockService locks = RedisLockService.builder().client(client).keyPrefix(prefix).owner("replica").build();
    RedisLockService twin = RedisLockService.builder().client(client).keyPrefix(prefix).owner("replica").build();
    try (LockHandle held = locks.acquire("shared", Duration.ofSeconds(5))) {
      assertThat(twin.tryAcquire("shared")).as("held by the other service").isEmpty();
      assertThat(held.isLost()).isFalse();
    } finally {
      twin.close();
      locks.close();
    }
  }
}
