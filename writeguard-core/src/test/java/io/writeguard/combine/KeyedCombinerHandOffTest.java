package io.writeguard.combine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.writeguard.Ticker;
import io.writeguard.testing.Gates;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Who leads next when a leader stops: it wakes the first queued caller, and that caller may be
 * giving up at that very moment. The race is forced with the clock: the first queued caller
 * is held inside its clock read (just after it found the key led), the leader stops and wakes
 * it, then the clock passes its wait (or its thread is interrupted). It withdraws; the caller
 * queued behind it, parked with a wait of an hour, must be woken to lead, not left parked
 * until its own wait runs out.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KeyedCombinerHandOffTest {

  @Test
  void aWokenCallerWhoseWaitPassedWakesTheNextOneToLead() throws Exception {
    handOffWhenTheWokenCallerGivesUp(false);
  }

  @Test
  void aWokenCallerInterruptedWakesTheNextOneToLead() throws Exception {
    handOffWhenTheWokenCallerGivesUp(true);
  }

  private void handOffWhenTheWokenCallerGivesUp(boolean byInterrupt) throws Exception {
    AtomicLong now = new AtomicLong();
    AtomicReference<Thread> held = new AtomicReference<>();
    AtomicInteger heldReads = new AtomicInteger();
    CountDownLatch heldInClock = new CountDownLatch(1);
    CountDownLatch clockMayAnswer = new CountDownLatch(1);
    Ticker ticker = () -> {
      // the held caller's 2nd read: in its wait, after it found someone leading
      if (Thread.currentThread() == held.get() && heldReads.incrementAndGet() == 2) {
        heldInClock.countDown();
        awaitKeepingInterrupt(clockMayAnswer); // an interrupt here is for the combiner to see
      }
      return now.get();
    };
    CountDownLatch leaderInStep = new CountDownLatch(1);
    CountDownLatch leaderMayFinish = new CountDownLatch(1);
    KeyedCombiner<String, String> combiner = KeyedCombiner.<String, String>builder(
        (key, batch) -> {
          for (int i = 0; i < batch.size(); i++) {
            if (batch.request(i).equals("leader")) {
              leaderInStep.countDown();
              Gates.await(leaderMayFinish);
            }
            batch.succeed(i, "ran " + batch.request(i));
          }
        }).ticker(ticker).build();
    Duration hour = Duration.ofHours(1);

    CompletableFuture<String> leader = submitOnNewThread(combiner, "leader", hour, null);
    assertThat(leaderInStep.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<String> givesUp =
        submitOnNewThread(combiner, "gives-up", Duration.ofSeconds(10), held);
    assertThat(heldInClock.await(10, TimeUnit.SECONDS)).isTrue();
    AtomicReference<Thread> nextThread = new AtomicReference<>();
    CompletableFuture<String> next = submitOnNewThread(combiner, "next", hour, nextThread);
    awaitParked(nextThread);

    leaderMayFinish.countDown(); // the leader stops and wakes the first queued: the held one
    assertThat(leader.get(10, TimeUnit.SECONDS)).isEqualTo("ran leader");
    if (byInterrupt) {
      held.get().interrupt();
    } else {
      now.set(Duration.ofSeconds(20).toNanos()); // past the held caller's wait, not the next's
    }
    clockMayAnswer.countDown();

    assertThatThrownBy(() -> givesUp.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(byInterrupt
            ? CombineInterruptedException.class : CombineTimeoutException.class);
    try {
      assertThat(next.get(10, TimeUnit.SECONDS)).isEqualTo("ran next");
    } finally {
      nextThread.get().interrupt(); // if it was left parked: do not leave it for an hour
    }
  }

  private static CompletableFuture<String> submitOnNewThread(
      KeyedCombiner<String, String> combiner, String request, Duration maxWait,
      AtomicReference<Thread> threadOut) {
    CompletableFuture<String> answer = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        answer.complete(combiner.submit("key", request, maxWait));
      } catch (RuntimeException e) {
        answer.completeExceptionally(e);
      }
    }, "submit-" + request);
    if (threadOut != null) {
      threadOut.set(t);
    }
    t.setDaemon(true);
    t.start();
    return answer;
  }

  private static void awaitParked(AtomicReference<Thread> thread) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (thread.get().getState() != Thread.State.TIMED_WAITING) {
      assertThat(System.nanoTime() - until).as("parked in time").isNegative();
      Thread.sleep(1);
    }
  }

  private static void awaitKeepingInterrupt(CountDownLatch latch) {
    boolean interrupted = false;
    while (true) {
      try {
        if (!latch.await(30, TimeUnit.SECONDS)) {
          throw new AssertionError("the test's gate never opened");
        }
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
