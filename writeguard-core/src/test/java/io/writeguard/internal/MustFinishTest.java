package io.writeguard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoSocketReadException;
import com.mongodb.MongoWriteException;
import com.mongodb.ServerAddress;
import com.mongodb.WriteError;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

/**
 * The rule for writes that record work already done: their own budget, never the caller's
 * expired one; the caller waits at most its deadline plus the grace; what is not done by then
 * goes on in the background.
 */
class MustFinishTest {
  private static final long GRACE_MS = Deadline.OUTCOME_GRACE.toMillis();

  /** The bug: a write sent 300 ms after the deadline got a 1 ms budget; now the grace. */
  @Test
  void aWriteAfterTheCallersDeadlineGetsTheGraceNotTheExpiredBudget() {
    long[] seen = new long[2];
    Deadline.within(Deadline.after(Duration.ofMillis(1)), () -> {
      sleep(300);
      seen[0] = Deadline.boundMillis(true);
      seen[1] = MustFinish.call("a test write", () -> Deadline.boundMillis(true));
    });
    assertThat(seen[0]).as("an ordinary write after the deadline").isLessThanOrEqualTo(1);
    // the grace as time left, and the grace again to learn the outcome
    assertThat(seen[1]).as("a write that must finish")
        .isBetween(2 * GRACE_MS - 50, 2 * GRACE_MS);
  }

  @Test
  void beforeTheDeadlineItGetsTheTimeLeftPlusTheGraceAsAnyWrite() {
    long bound = Deadline.within(Deadline.after(Duration.ofSeconds(2)),
        () -> MustFinish.call("a test write", () -> Deadline.boundMillis(true)));
    assertThat(bound).isBetween(2000 + GRACE_MS - 200, 2000 + GRACE_MS);
  }

  @Test
  void withoutADeadlineTheClientsOwnTimeoutsBoundItAsBefore() {
    long bound = MustFinish.call("a test write", () -> Deadline.boundMillis(true));
    assertThat(bound).isEqualTo(Deadline.UNBOUNDED);
  }

  @Test
  void aWriteNotDoneWhenTheCallersWaitEndsGoesOnInTheBackgroundUntilDone() throws Exception {
    AtomicInteger sends = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(1);
    long start = System.nanoTime();
    assertThatThrownBy(() -> Deadline.within(Deadline.after(Duration.ofMillis(1)), () -> {
      sleep(5);
      MustFinish.call("a test write", () -> {
        if (sends.incrementAndGet() <= 4) {
          throw new MongoSocketReadException("injected: reply lost", new ServerAddress());
        }
        done.countDown();
        return 1;
      });
    })).isInstanceOf(MustFinish.Continuing.class)
        .hasCauseInstanceOf(MongoSocketReadException.class);
    Duration answered = Duration.ofNanos(System.nanoTime() - start);
    assertThat(answered).isLessThan(Deadline.OUTCOME_GRACE.multipliedBy(2).plusMillis(500));
    assertThat(done.await(MustFinish.BUDGET.toSeconds(), TimeUnit.SECONDS))
        .as("done in the background").isTrue();
    assertThat(sends.get()).isEqualTo(5);
  }

  @Test
  void aWriteTheServerRefusesIsNotSentAgain() {
    AtomicInteger sends = new AtomicInteger();
    MongoWriteException refused = new MongoWriteException(
        new WriteError(121, "Document failed validation", new BsonDocument()),
        new ServerAddress(), List.of());
    assertThatThrownBy(() -> Deadline.within(Deadline.after(Duration.ofSeconds(1)),
        () -> MustFinish.call("a test write", () -> {
          sends.incrementAndGet();
          throw refused;
        }))).isSameAs(refused);
    assertThat(sends.get()).isEqualTo(1);
  }

  @Test
  void theInterruptIsSetAsideForTheWriteAndRestoredAfter() {
    Thread.currentThread().interrupt();
    try {
      boolean seenInterrupted = MustFinish.call("a test write",
          () -> Thread.currentThread().isInterrupted());
      assertThat(seenInterrupted).isFalse();
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
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
