package io.writeguard.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/** Review 19: the health indicator after a ping that never returns. */
class WriteGuardHealthIndicatorReview19Test {

  /**
   * The first ping hangs on a connection that will never answer (a half-open socket with the
   * MongoDB driver's default socketTimeoutMS=0); the store itself is back and answers every
   * new ping at once.
   */
  static final class OnePingLostForever implements LockStoreProbe {
    final CountDownLatch never = new CountDownLatch(1);
    final AtomicInteger checks = new AtomicInteger();

    @Override
    public String name() {
      return "mongo";
    }

    @Override
    public String check() {
      if (checks.incrementAndGet() == 1) {
        try {
          never.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted");
        }
      }
      return "PONG";
    }
  }

  @Test
  void aPingThatNeverReturnsDoesNotKeepARecoveredStoreDownForever() {
    OnePingLostForever store = new OnePingLostForever();
    WriteGuardHealthIndicator indicator =
        new WriteGuardHealthIndicator(List.of(store), Duration.ofSeconds(1));
    try {
      assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
      // The store answers any new ping now. Two more health calls, each a full timeout after
      // the lost ping was sent: the indicator keeps waiting for that one ping and never asks
      // again, so the store is DOWN for as long as the process lives.
      indicator.health();
      Health third = indicator.health();
      assertThat(third.getStatus())
          .as("details %s after %s pings", third.getDetails(), store.checks.get())
          .isEqualTo(Status.UP);
    } finally {
      store.never.countDown();
      indicator.close();
    }
  }
}
