package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;

/**
 * The {@link LockServiceContract} for in-process services (no leases), plus a thread pool for
 * their own tests that must be empty again after each test.
 */
abstract class InProcessLockContract extends LockServiceContract {

  /** For tests that wait in other threads; interrupted and checked stopped after each test. */
  protected final ExecutorService threads = Executors.newCachedThreadPool();

  @Override
  protected final boolean supportsLeases() {
    return false;
  }

  @AfterEach
  void stopThreads() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }
}
