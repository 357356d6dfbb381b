package io.writeguard.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ConcurrentlyTest {

  @Test
  void allThreadsRunAtOnceEachWithItsIndex() throws Exception {
    // A barrier for all of them passes only if every thread is running at the same time.
    CyclicBarrier together = new CyclicBarrier(5);
    Set<Integer> seen = ConcurrentHashMap.newKeySet();
    Concurrently.run(5, Duration.ofSeconds(30), thread -> {
      together.await(20, TimeUnit.SECONDS);
      seen.add(thread);
    });
    assertThat(seen).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
  }

  @Test
  void theCallerWorksMeanwhileWhileTheThreadsRun() throws Exception {
    CountDownLatch callerDone = new CountDownLatch(1);
    AtomicBoolean threadSawCaller = new AtomicBoolean();
    Concurrently.run(1, Duration.ofSeconds(30),
        thread -> threadSawCaller.set(callerDone.await(20, TimeUnit.SECONDS)),
        callerDone::countDown);
    assertThat(threadSawCaller).isTrue();
  }

  @Test
  void aThreadsExceptionIsRethrownAsItIs() {
    assertThatThrownBy(() -> Concurrently.run(3, Duration.ofSeconds(30), thread -> {
      if (thread == 1) {
        throw new IOException("thread 1 failed");
      }
    })).isInstanceOf(IOException.class).hasMessage("thread 1 failed");
    assertThatThrownBy(() -> Concurrently.run(2, Duration.ofSeconds(30), thread -> {
      throw new AssertionError("an assertion inside a thread");
    })).isInstanceOf(AssertionError.class).hasMessage("an assertion inside a thread");
  }

  @Test
  void aStuckThreadFailsTheRunAfterTheTimeoutAndIsInterrupted() {
    AtomicBoolean interrupted = new AtomicBoolean();
    assertThatThrownBy(() -> Concurrently.run(2, Duration.ofMillis(200), thread -> {
      if (thread == 0) {
        try {
          new CountDownLatch(1).await();
        } catch (InterruptedException e) {
          interrupted.set(true);
        }
      }
    })).isInstanceOf(AssertionError.class)
        .hasMessage("thread 0 of 2 still running after PT0.2S");
    assertThat(interrupted).isTrue();
  }

  @Test
  void rejectsFewerThanOneThread() {
    assertThatThrownBy(() -> Concurrently.run(0, Duration.ofSeconds(1), thread -> {}))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("threads must be >= 1, was 0");
  }
}
