package io.writeguard.redis;

import io.writeguard.lock.LockHandle;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A held Redis lock: the key holds {@code "<owner>:<token>"}, and release and renewal compare
 * that whole value, so they never touch a lock that another holder took after this lease ran
 * out.
 *
 * <p>Lease accounting is local and conservative: the lease is counted from the moment the
 * acquire (or renewal) was <em>sent</em>, so this handle believes it expired no later than
 * Redis does. One scheduled task per handle keeps it: with a watchdog it renews every
 * {@code renewInterval}; without one it fires when the lease ends. Either way, a lease that is
 * known lost (renewal answered "not yours", or the lease ran out before a renewal succeeded)
 * marks the handle lost, tells the listener once, and passes the process-local turn to the next
 * waiter, so a forgotten handle cannot block its key in this process beyond its lease.
 *
 * <p>{@link #close()} sends the release script and returns without waiting for the answer:
 * the next local holder's acquire goes out behind it on the same connection, so Redis runs the
 * release first and the hand-over costs no extra round trip. A release that fails only leaves
 * the key to expire with its lease; it is logged. Thread-safe.
 */
final class RedisLockHandle implements LockHandle {
  private static final Logger log = LoggerFactory.getLogger(RedisLockHandle.class);

  private final RedisLockService service;
  private final String key;
  private final String value;
  private final long token;
  private final LockHandle localTurn;
  private final long acquiredAt;
  private volatile long leaseDeadline;
  private volatile ScheduledFuture<?> task;
  private final AtomicBoolean released = new AtomicBoolean();
  private final AtomicBoolean lost = new AtomicBoolean();

  RedisLockHandle(RedisLockService service, String key, long token, LockHandle localTurn, long sentAt) {
    this.service = service;
    this.key = key;
    this.token = token;
    this.value = service.owner() + ":" + token;
    this.localTurn = localTurn;
    this.acquiredAt = sentAt;
    this.leaseDeadline = sentAt + service.lease().toNanos();
  }

  /** Starts the watchdog (or the lease-end check when there is none). */
  void start() {
    Duration renew = service.renewInterval();
    if (renew != null) {
      schedule(renew.toNanos(), this::renewNow);
    } else {
      schedule(leaseDeadline - service.ticker().nanoTime(), this::checkLeaseEnd);
    }
  }

  @Override
  public String key() {
    return key;
  }

  @Override
  public long token() {
    return token;
  }

  /** The value stored at the lock key while this handle holds it: {@code owner:token}. */
  String value() {
    return value;
  }

  @Override
  public boolean isLost() {
    return lost.get() || (!released.get() && service.ticker().nanoTime() - leaseDeadline >= 0);
  }

  @Override
  public boolean isReleased() {
    return released.get();
  }

  @Override
  public void close() {
    if (!released.compareAndSet(false, true)) {
      return;
    }
    cancelTask();
    // Sent before the local turn passes on, so the next local head's acquire queues behind it.
    service.scripts().release(service.lockKey(key), value, service.channel(key))
        .whenComplete((result, error) -> {
          if (error != null) {
            log.warn("release of redis lock '{}' (token {}) failed; it expires with its lease: {}",
                key, token, LockScripts.unwrap(error).toString());
          } else if (result == 0L) {
            log.debug("redis lock '{}' (token {}) was no longer held at release", key, token);
          }
        });
    localTurn.close();
    service.listener().onLockReleased(RedisLockService.BACKEND, key, token,
        Duration.ofNanos(service.ticker().nanoTime() - acquiredAt));
  }

  @Override
  public String toString() {
    return "RedisLockHandle[key=" + key + ", token=" + token
        + (released.get() ? ", released" : "") + (isLost() ? ", lost" : "") + "]";
  }

  private void renewNow() {
    if (released.get() || lost.get()) {
      return;
    }
    long sentAt = service.ticker().nanoTime();
    if (sentAt - leaseDeadline >= 0) {
      markLost("the lease ran out before a renewal succeeded");
      return;
    }
    service.scripts().renew(service.lockKey(key), value, service.lease().toMillis())
        .whenComplete((result, error) -> {
          if (error != null) {
            // Not lost yet: try again, and give up only when the lease has run out.
            log.warn("renewal of redis lock '{}' (token {}) failed, will retry: {}",
                key, token, LockScripts.unwrap(error).toString());
            long untilEnd = leaseDeadline - service.ticker().nanoTime();
            schedule(Math.min(service.renewInterval().toNanos(), Math.max(0, untilEnd)), this::renewNow);
          } else if (result == 1L) {
            leaseDeadline = sentAt + service.lease().toNanos();
            schedule(service.renewInterval().toNanos(), this::renewNow);
          } else {
            markLost("renewal found the key held by someone else or expired");
          }
        });
  }

  private void checkLeaseEnd() {
    if (released.get() || lost.get()) {
      return;
    }
    long left = leaseDeadline - service.ticker().nanoTime();
    if (left > 0) {
      schedule(left, this::checkLeaseEnd);
    } else {
      markLost("the lease ran out (no watchdog)");
    }
  }

  private void markLost(String reason) {
    if (!lost.compareAndSet(false, true)) {
      return;
    }
    log.warn("redis lock '{}' (token {}) lost: {}", key, token, reason);
    service.listener().onLeaseLost(RedisLockService.BACKEND, key, token);
    // Local waiters may now try Redis; the key there has expired or belongs to someone else.
    localTurn.close();
  }

  private void schedule(long delayNanos, Runnable action) {
    if (released.get()) {
      return;
    }
    try {
      task = service.scheduler().schedule(action, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // The service was closed: held handles stay valid until their lease runs out.
      log.debug("lock service closed; no more renewals for '{}'", key);
    }
    if (released.get()) {
      cancelTask(); // Guard against a race with close(), which may have run before task was set.
    }
  }

  private void cancelTask() {
    ScheduledFuture<?> t = task;
    if (t != null) {
      t.cancel(false);
    }
  }
}
