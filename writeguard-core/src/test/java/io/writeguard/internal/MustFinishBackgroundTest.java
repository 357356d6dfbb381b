package io.writeguard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoSocketReadException;
import com.mongodb.ServerAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Review of issue 35: the background that finishes writes recording work done is shared by
 * every client of the JVM. Its four threads were held by the sends of a stalled server (each
 * may block for its whole 10 s budget), and a write to a server that answers waited in the
 * queue behind them; by the time it started, its budget was spent, and it was given up
 * without one send (a lock of a healthy backend left taken, a give-back never made).
 */
class MustFinishBackgroundTest {
  /** Four times as many as the pool had threads before the fix. */
  private static final int STALLED = 16;

  @Test
  void aStalledServersBackgroundWritesDoNotHoldUpAnotherServers() throws Exception {
    CountDownLatch serverBack = new CountDownLatch(1);
    CountDownLatch stalledStarted = new CountDownLatch(STALLED);
    CountDownLatch healthyDone = new CountDownLatch(1);
    try {
      for (int i = 0; i < STALLED; i++) {
        handOff("a write to a stalled server", () -> {
          stalledStarted.countDown();
          // a send blocked until the server answers (bounded: the test's own limit)
          await(serverBack, MustFinish.BUDGET.toMillis());
          return null;
        });
      }
      assertThat(stalledStarted.await(5, TimeUnit.SECONDS))
          .as("every stalled write is being sent in the background").isTrue();
      handOff("a write to a server that answers", () -> {
        healthyDone.countDown();
        return null;
      });
      assertThat(healthyDone.await(3, TimeUnit.SECONDS))
          .as("a write to a server that answers is done while the other server stalls")
          .isTrue();
    } finally {
      serverBack.countDown();
    }
  }

  /**
   * Calls {@code background} through MustFinish after the caller's deadline: the caller's
   * sends fail (the reply is lost), so it goes on in the background, where it is {@code
   * background}.
   */
  private static void handOff(String what, java.util.function.Supplier<Object> background) {
    assertThatThrownBy(() -> Deadline.within(Deadline.after(Duration.ofMillis(1)), () -> {
      sleep(2);
      MustFinish.call(what, () -> {
        if (!Thread.currentThread().getName().startsWith("writeguard-must-finish")) {
          throw new MongoSocketReadException("injected: reply lost", new ServerAddress());
        }
        return background.get();
      });
    })).isInstanceOf(MustFinish.Continuing.class);
  }

  private static void await(CountDownLatch latch, long millis) {
    try {
      latch.await(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
