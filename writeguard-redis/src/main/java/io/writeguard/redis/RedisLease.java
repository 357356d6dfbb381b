package io.writeguard.redis;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Redis lease held by this process for one key, from the acquire script to the release
 * script. The key holds {@code "<owner>:<first>"}; release and renewal compare that whole value,
 * so they never touch a lock that another holder took after this lease ran out.
 *
 * <p><b>Tokens.</b> The acquire raises the token counter by a block of {@code block} tokens,
 * {@code [first, top]}. The first holder gets {@code first}; when it releases while other
 * callers of this process are queued for the key, the next one gets the next token of the block
 * without a round trip (the service decides, see {@code RedisLockService#release}). A later
 * acquire by anyone gets a token above {@code top}, so tokens still rise strictly from holder to
 * holder. With a block of 1 every holder takes the lock at Redis.
 *
 * <p><b>Lease accounting</b> is local and conservative: the lease is counted from the moment the
 * acquire (or renewal) was <em>sent</em>, so this side believes it expired no later than Redis
 * does. One scheduled task per lease keeps it: with a watchdog it renews every
 * {@code renewInterval}; without one it fires when the lease ends. A lease that is known lost
 * (renewal answered "not yours", or the lease ran out before a renewal succeeded) tells the
 * listener once, marks the current holder lost and passes its process-local turn on, so a
 * forgotten handle cannot block its key in this process beyond its lease.
 *
 * <p>Threads: tokens are handed out only by the holder of the key's process-local turn; the
 * watchdog runs on the service's scheduler; {@code lost}, {@code ended}, {@code current} and the
 * deadline are therefore atomic or volatile. Not API.
 */
final class RedisLease {
  private static final Logger log = LoggerFactory.getLogger(RedisLease.class);

  private final RedisLockService service;
  final String key;
  final String value;
  final long top;
  final long startNanos;
  final AtomicBoolean lost = new AtomicBoolean();
  final AtomicBoolean ended = new AtomicBoolean();
  /** The handle holding the key now, or null between two local holders. */
  volatile RedisLockHandle current;
  private volatile long leaseDeadline;
  private volatile ScheduledFuture<?> task;
  private long next; // guarded by the key's process-local turn

  RedisLease(RedisLockService service, String key, long first, int block, long sentAt) {
    this.service = service;
    this.key = key;
    this.value = service.owner() + ":" + first;
    this.top = first + block - 1;
    this.next = first;
    this.startNanos = sentAt;
    this.leaseDeadline = sentAt + service.lease().toNanos();
  }

  boolean hasTokens() {
    return next <= top;
  }

  /** The next token of the block; only the holder of the key's local turn calls this. */
  long nextToken() {
    return next++;
  }

  boolean usable() {
    return !lost.get() && !ended.get();
  }

  long leaseLeftNanos() {
    return leaseDeadline - service.ticker().nanoTime();
  }

  boolean leaseRanOut() {
    return leaseLeftNanos() <= 0;
  }

  /** Starts the watchdog (or the lease-end check when there is none). */
  void start() {
    Duration renew = service.renewInterval();
    if (renew != null) {
      schedule(renew.toNanos(), this::renewNow);
    } else {
      schedule(leaseLeftNanos(), this::checkLeaseEnd);
    }
  }

  /**
   * Sends the release script, once, and returns without waiting for the answer: a local
   * caller's acquire sent next goes out behind it on the same connection, so Redis runs the
   * release first and the hand-over costs no extra round trip. A release that fails only leaves
   * the key to expire with its lease; it is logged.
   */
  void end() {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    cancelTask(); // ended is set first, so a renewal in flight cannot call this a loss
    service.scripts().release(service.lockKey(key), value, service.channel(key))
        .whenComplete((result, error) -> {
          if (error != null) {
            log.warn("release of redis lock '{}' ({}) failed; it expires with its lease: {}",
                key, value, LockScripts.unwrap(error).toString());
          } else if (result == 0L) {
            log.debug("redis lock '{}' ({}) was no longer held at release", key, value);
          }
        });
  }

  private void renewNow() {
    if (!usable()) {
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
            log.warn("renewal of redis lock '{}' ({}) failed, will retry: {}",
                key, value, LockScripts.unwrap(error).toString());
            long untilEnd = leaseDeadline - service.ticker().nanoTime();
            schedule(Math.min(service.renewInterval().toNanos(), Math.max(0, untilEnd)), this::renewNow);
          } else if (result == 1L) {
            leaseDeadline = sentAt + service.lease().toNanos();
            schedule(service.renewInterval().toNanos(), this::renewNow);
          } else if (!ended.get()) {
            markLost("renewal found the key held by someone else or expired");
          }
        });
  }

  private void checkLeaseEnd() {
    if (!usable()) {
      return;
    }
    long left = leaseLeftNanos();
    if (left > 0) {
      schedule(left, this::checkLeaseEnd);
    } else {
      markLost("the lease ran out (no watchdog)");
    }
  }

  /**
   * Marks the lease lost, once: the listener hears it first (whoever sees {@code isLost()} can
   * rely on that), then the current holder is marked lost and its local turn passes on; a lease
   * parked between two local holders is let go.
   */
  void markLost(String reason) {
    if (ended.get() || !lost.compareAndSet(false, true)) {
      return;
    }
    cancelTask();
    RedisLockHandle holder = current;
    long token = holder != null ? holder.token() : top;
    log.warn("redis lock '{}' (token {}) lost: {}", key, token, reason);
    service.listener().onLeaseLost(RedisLockService.BACKEND, key, token);
    if (holder != null) {
      holder.markLost();
      // Local waiters may now try Redis; the key there has expired or belongs to someone else.
      holder.releaseLocal();
    } else {
      service.releaseParkedLater(key);
    }
  }

  private void schedule(long delayNanos, Runnable action) {
    if (!usable()) {
      return;
    }
    try {
      task = service.scheduler().schedule(action, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // The service was closed: held handles stay valid until their lease runs out.
      log.debug("lock service closed; no more renewals for '{}'", key);
    }
    if (!usable()) {
      cancelTask(); // Guard against a race with end(), which may have run before task was set.
    }
  }

  private void cancelTask() {
    ScheduledFuture<?> t = task;
    if (t != null) {
      t.cancel(false);
    }
  }
}
