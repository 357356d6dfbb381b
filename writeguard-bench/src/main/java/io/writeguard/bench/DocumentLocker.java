package io.writeguard.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A faithful Java port of the in-memory {@code DocumentLocker} that a widely copied article
 * recommends against Mongoose lost updates, <b>bugs included</b>, so the bench measures what
 * its readers run. Do not use it: it is here to be measured.
 *
 * <p>How the port keeps the original's behaviour:
 * <ul>
 *   <li>JavaScript runs one callback at a time; here every callback body runs under one monitor
 *       ({@code loop}), and {@code await} becomes a {@link CompletableFuture}.
 *   <li>{@code lockedIds} is a JavaScript {@code Set} of {@code ObjectId} objects, which
 *       compares objects by reference; the port uses an identity set. Since each request builds
 *       a new {@code ObjectId} from the request's id, two requests for the same document never
 *       see each other's entry: <b>bug 1, the lock never excludes anyone</b>.
 *   <li>A waiter polls {@code lockedIds} every {@code pollInterval} (1 s in the article) and
 *       gives up after 60 s. <b>Bug 2</b>: {@code release} cancels every pending waiter's poll
 *       timer for the id without resolving or rejecting its promise, so <b>a waiter never gets
 *       the lock</b>: it waits forever (the request never answers) unless its 60 s ran out
 *       first. A caller of the port bounds its wait itself. (After a poll does find the id
 *       free, {@code acquire} adds it without a second look; the cancelled timers make that
 *       path unreachable.)
 *   <li><b>Bug 3</b>: the route calls {@code release} in its {@code catch} too, so a request
 *       whose {@code acquire} timed out frees the lock of the request that holds it.
 *   <li>It lives in one process's memory: processes do not see each other's locks.
 * </ul>
 *
 * <p>Thread-safe in the sense above (all state under {@code loop}); {@link #close()} stops the
 * timer thread.
 */
final class DocumentLocker implements AutoCloseable {
  static final Duration LOCK_TIMEOUT = Duration.ofSeconds(60);
  static final Duration POLL_INTERVAL = Duration.ofSeconds(1);

  private final Object loop = new Object();
  private final Set<Object> lockedIds = Collections.newSetFromMap(new IdentityHashMap<>());
  private final Map<Object, List<ScheduledFuture<?>>> pendingWaits = new IdentityHashMap<>();
  private final ScheduledExecutorService timers;
  private final Duration pollInterval;

  DocumentLocker() {
    this(POLL_INTERVAL);
  }

  /** A locker polling every {@code pollInterval} (tests shorten the article's 1 s). */
  DocumentLocker(Duration pollInterval) {
    this.pollInterval = pollInterval;
    this.timers = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "document-locker-timers");
      t.setDaemon(true);
      return t;
    });
  }

  /** {@code async acquire(_id)}: if held, await the poll; then add, without checking again. */
  CompletableFuture<Void> acquire(Object id) {
    CompletableFuture<Void> wait;
    synchronized (loop) {
      if (!lockedIds.contains(id)) {
        lockedIds.add(id);
        return CompletableFuture.completedFuture(null);
      }
      wait = waitForUnlock(id);
    }
    return wait.thenRun(() -> {
      synchronized (loop) {
        lockedIds.add(id); // no second look (unreachable: see release)
      }
    });
  }

  /** {@code release(_id)}: delete, and clear the waiters' timers without settling them (bug 2). */
  void release(Object id) {
    synchronized (loop) {
      lockedIds.remove(id);
      List<ScheduledFuture<?>> waiting = pendingWaits.remove(id);
      if (waiting != null) {
        waiting.forEach(timer -> timer.cancel(false));
      }
    }
  }

  /** The {@code setInterval} poll; called under {@code loop}. */
  private CompletableFuture<Void> waitForUnlock(Object id) {
    CompletableFuture<Void> promise = new CompletableFuture<>();
    AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
    long[] elapsedMs = {0};
    Runnable tick = () -> {
      synchronized (loop) {
        if (self.get().isCancelled()) {
          // JavaScript's clearInterval: a cleared timer never runs again. Here a tick that had
          // already fired may be waiting for the monitor while release clears it; it must not
          // run either (the race made the test of bug 2 fail under load).
          return;
        }
        if (!lockedIds.contains(id)) {
          self.get().cancel(false);
          promise.complete(null);
          return;
        }
        elapsedMs[0] += pollInterval.toMillis();
        if (elapsedMs[0] >= LOCK_TIMEOUT.toMillis()) {
          self.get().cancel(false);
          promise.completeExceptionally(new IllegalStateException("Failed to acquire lock for "
              + id + " after " + LOCK_TIMEOUT.toMillis() + "ms"));
        }
      }
    };
    long period = pollInterval.toNanos();
    synchronized (loop) { // the tick must see its own timer
      self.set(timers.scheduleAtFixedRate(tick, period, period, TimeUnit.NANOSECONDS));
      pendingWaits.computeIfAbsent(id, k -> new ArrayList<>()).add(self.get());
    }
    return promise;
  }

  @Override
  public void close() {
    timers.shutdownNow();
  }
}
