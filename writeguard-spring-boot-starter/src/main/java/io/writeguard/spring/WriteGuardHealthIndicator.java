package io.writeguard.spring;

import io.writeguard.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * UP when every configured lock store answers ({@link LockStoreProbe}) within the timeout
 * ({@code writeguard.health.timeout}), DOWN naming the ones that do not. A store that cannot be
 * reached means {@code @LeaseLocked} methods fail with {@code DataAccessResourceFailureException};
 * the optimistic updaters do not depend on it.
 *
 * <p>Why a timeout of its own: a check is one round trip (MongoDB {@code ping}, Redis
 * {@code PING}), but a stalled server can hold it for as long as the client's timeouts allow
 * (server selection, socket read), far longer than a load balancer or Kubernetes waits for
 * {@code /actuator/health}. The checks run on this indicator's own daemon threads, all stores at
 * once, and {@link #health()} returns when they have answered or the timeout has passed,
 * whichever comes first; a store still silent is DOWN with "no answer within N ms".
 *
 * <p>Bounded: a check still running from an earlier call that was sent less than a timeout
 * ago is waited for again instead of sending a second one; an older one is abandoned
 * (interrupted) and a new check sent, so one lost reply cannot keep a store that answers DOWN.
 * At most {@value #MAX_STUCK_PER_STORE} checks per store run at once (checks that ignore the
 * interrupt keep their thread); past that the store is DOWN without a new check. Idle threads
 * end after a minute; {@link #close()} stops them. Thread-safe.
 */
public class WriteGuardHealthIndicator implements HealthIndicator, AutoCloseable {
  /** The timeout of {@link #WriteGuardHealthIndicator(List)}. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

  private final List<LockStoreProbe> probes;
  private final Duration timeout;
  private final ThreadPoolExecutor executor;
  private final List<Future<String>> inFlight; // per probe, by index; guarded by this
  private final long[] sentAt; // when each in-flight check was sent (nanoTime); guarded by this
  /** Checks of one store that may hang at once before a new one is refused. */
  static final int MAX_STUCK_PER_STORE = 4;

  /** Checks {@code probes} with the {@link #DEFAULT_TIMEOUT}. */
  public WriteGuardHealthIndicator(List<LockStoreProbe> probes) {
    this(probes, DEFAULT_TIMEOUT);
  }

  /**
   * @param probes the stores to check
   * @param timeout how long {@link #health()} waits for their answers; positive
   */
  public WriteGuardHealthIndicator(List<LockStoreProbe> probes, Duration timeout) {
    this.probes = List.copyOf(probes);
    this.timeout = Checks.positive("writeguard.health.timeout", timeout);
    int threads = Math.max(1, this.probes.size()) * MAX_STUCK_PER_STORE;
    AtomicInteger count = new AtomicInteger();
    this.executor = new ThreadPoolExecutor(0, threads, 60, TimeUnit.SECONDS,
        new java.util.concurrent.SynchronousQueue<>(), task -> {
          Thread thread = new Thread(task, "writeguard-health-" + count.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        });
    this.inFlight = new ArrayList<>();
    this.sentAt = new long[this.probes.size()];
    for (int i = 0; i < this.probes.size(); i++) {
      inFlight.add(null);
    }
  }

  /** How long {@link #health()} waits for the stores. */
  public Duration timeout() {
    return timeout;
  }

  @Override
  public Health health() {
    List<Future<String>> checks = start();
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<String, Object> details = new LinkedHashMap<>();
    boolean up = true;
    for (int i = 0; i < probes.size(); i++) {
      String name = probes.get(i).name();
      try {
        long left = Math.max(0, deadline - System.nanoTime());
        details.put(name, "UP: " + checks.get(i).get(left, TimeUnit.NANOSECONDS));
      } catch (TimeoutException e) {
        up = false;
        details.put(name, "DOWN: no answer within " + timeout.toMillis() + " ms");
      } catch (ExecutionException e) {
        up = false;
        details.put(name, "DOWN: " + e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        up = false;
        details.put(name, "DOWN: interrupted while waiting for an answer");
      }
    }
    return (up ? Health.up() : Health.down()).withDetails(details).build();
  }

  /** Stops the check threads; a check still running is interrupted. */
  @Override
  public void close() {
    executor.shutdownNow();
  }

  /**
   * Each probe's check: the one in flight if it was sent less than a timeout ago, else a new
   * one. A check older than that is abandoned (interrupted): waiting on it again would keep a
   * store that answers new checks DOWN for as long as one lost reply hangs. Abandoned checks
   * that ignore the interrupt keep their thread; at most {@link #MAX_STUCK_PER_STORE} per store
   * run at once, and past that a store is DOWN without a new check.
   */
  private synchronized List<Future<String>> start() {
    long now = System.nanoTime();
    for (int i = 0; i < probes.size(); i++) {
      Future<String> running = inFlight.get(i);
      if (running != null && !running.isDone() && now - sentAt[i] < timeout.toNanos()) {
        continue; // the store stalled less than a timeout ago: wait on the same check
      }
      if (running != null) {
        running.cancel(true);
      }
      try {
        inFlight.set(i, executor.submit(probes.get(i)::check));
        sentAt[i] = now;
      } catch (java.util.concurrent.RejectedExecutionException full) {
        inFlight.set(i, java.util.concurrent.CompletableFuture.failedFuture(
            new IllegalStateException(MAX_STUCK_PER_STORE * probes.size()
                + " checks are hanging already; none sent")));
        sentAt[i] = now;
      }
    }
    return List.copyOf(inFlight);
  }
}
