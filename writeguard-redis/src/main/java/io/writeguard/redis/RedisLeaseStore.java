package io.writeguard.redis;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.internal.Deadline;
import io.writeguard.internal.LockArguments;
import io.writeguard.lock.LeaseStore;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis store of the lease-lock engine: one hash per lock key, changed only by the Lua
 * scripts next to this class, so every step is atomic at the server.
 *
 * <pre>
 * wg:lock:{orders:42} = { o: "node-a/9f3c:1k",   // owner:attempt of the holder; absent when free
 *                         f: 3650722201075712,   // first token of the holder's block
 *                         t: 3650722201075743 }  // highest token minted for the key
 * PX = the lease while held; kept {@link #KEEP_FREED} after a release, then gone.
 * </pre>
 *
 * <p>Tokens are {@code serverMillis * 2048 + n} and never pass the next millisecond's range
 * (see {@code acquire.lua}), so they rise across a restart of Redis without its data; the key
 * is kept a moment after release so a take within the same millisecond counts on.
 *
 * <p>The lock key is {@code prefix{key}} ({@link #redisKey}): hash-tagged, so on Redis Cluster
 * everything a script touches (the key, and its release channel of the same name) lies in one
 * slot, the lock keys spread over all slots, and a key that contains braces itself cannot pull
 * the prefix into its tag.
 *
 * <p>Every command for a key goes out on one connection, so calls made one after another reach
 * Redis in that order: a release sent (without waiting) before the next local caller's take runs first,
 * and an abandon sent after a take that timed out runs after it. Busy waiters subscribe to the
 * key's release channel ({@link ReleaseWaker}) and re-check after the holder's remaining lease
 * or {@code fallbackRecheck}, as pub/sub may lose messages and expiry sends none. Thread-safe.
 */
final class RedisLeaseStore implements LeaseStore {
  private static final Logger log = LoggerFactory.getLogger(RedisLeaseStore.class);
  /** How long a released key keeps its token count: far longer than the millisecond it needs. */
  static final Duration KEEP_FREED = Duration.ofSeconds(1);
  /**
   * How long a process that releases a key another process waited for leaves it to that one
   * (see {@code release.lua}): the waiter is woken by the release message and takes within a
   * round trip; if it does not (it left, or lost the message), the yielding process takes the
   * key once this has passed. At most {@link #KEEP_FREED}.
   */
  static final Duration YIELD = Duration.ofMillis(20);

  private final LockScripts scripts;
  private final ReleaseWaker waker;
  private final String keyPrefix;
  private final long leaseMs;
  private final Duration commandTimeout;
  private final long fallbackNanos;
  /** Releases sent and not answered yet, so close() can let them finish. */
  private final Set<CompletableFuture<Long>> releasesInFlight = ConcurrentHashMap.newKeySet();

  RedisLeaseStore(LockScripts scripts, ReleaseWaker waker, String keyPrefix, Duration lease,
      Duration commandTimeout, Duration fallbackRecheck) {
    this.scripts = scripts;
    this.waker = waker;
    this.keyPrefix = keyPrefix;
    this.leaseMs = lease.toMillis();
    this.commandTimeout = commandTimeout;
    this.fallbackNanos = fallbackRecheck.toNanos();
  }

  /** The Redis key (and release channel) of lock {@code key}: {@code prefix{key}}. */
  static String redisKey(String keyPrefix, String key) {
    return keyPrefix + "{" + key + "}";
  }

  @Override
  public String describe() {
    return "redis " + keyPrefix;
  }

  @Override
  public Take take(String key, String owner, String attempt, int block, boolean queued) {
    long result = await(scripts.acquire(redisKey(keyPrefix, key), owner + ":" + attempt, leaseMs,
        block, owner, queued), key);
    if (result > 0) {
      return new Take(new Grant(result, result + block - 1), 0);
    }
    return Take.busy(result < 0 ? TimeUnit.MILLISECONDS.toNanos(-result) : Long.MAX_VALUE);
  }

  @Override
  public boolean renew(String key, String owner, String attempt, Grant grant) {
    return await(scripts.renew(redisKey(keyPrefix, key), owner + ":" + attempt, leaseMs), key) == 1L;
  }

  /** Sent without waiting for the answer; a failure leaves the key to expire with its lease. */
  @Override
  public long release(String key, String owner, String attempt, Grant grant) {
    String holder = owner + ":" + attempt;
    String lockKey = redisKey(keyPrefix, key);
    CompletableFuture<Long> reply = scripts.release(lockKey, holder, lockKey, KEEP_FREED.toMillis(),
        owner, YIELD.toMillis());
    releasesInFlight.add(reply); // before whenComplete, so the removal always comes after
    reply.whenComplete((result, error) -> {
      releasesInFlight.remove(reply);
      if (error != null) {
        log.warn("release of redis lock '{}' ({}) failed; it expires with its lease: {}",
            LockArguments.shorten(key), holder, LockScripts.unwrap(error).toString());
      } else if (result == 0L) {
        log.debug("redis lock '{}' ({}) was no longer held at release", LockArguments.shorten(key), holder);
      }
    });
    return 0;
  }

  @Override
  public void abandon(String key, String owner, String attempt) {
    release(key, owner, attempt, null);
  }

  @Override
  public BusyWait busyWait(String key) {
    return new BusyWait() {
      private ReleaseWaker.Registration wake;

      @Override
      public void beforeTake() {
        if (wake != null) {
          wake.drain(); // only releases after this take may wake us
        }
      }

      @Override
      public void pause(int attempt, long retryHintNanos, long maxNanos) throws InterruptedException {
        if (wake == null) {
          // Subscribe, then take again at once: a release before the subscription sends nothing.
          // Wait for the confirmation no longer than the caller may still wait.
          wake = waker.register(redisKey(keyPrefix, key));
          long confirmNanos = Math.min(commandTimeout.toNanos(), Math.max(0, maxNanos));
          if (!wake.awaitSubscribed(Duration.ofNanos(confirmNanos)) && confirmNanos == commandTimeout.toNanos()) {
            log.warn("subscription to the release channel of redis lock '{}' not confirmed within commandTimeout {}ms;"
                + " waiting by re-checks only", LockArguments.shorten(key), commandTimeout.toMillis());
          }
          return;
        }
        long holderLeft = retryHintNanos == Long.MAX_VALUE ? Long.MAX_VALUE : retryHintNanos + 1_000_000;
        wake.await(Math.min(maxNanos, Math.min(holderLeft, fallbackNanos)));
      }

      @Override
      public void close() {
        if (wake != null) {
          wake.close();
        }
      }
    };
  }

  /**
   * Waits up to {@code timeout} for the releases sent so far to be answered (on a cluster they
   * go to several nodes, so one PING behind them would not prove it). Failures are ignored:
   * those keys expire with their leases.
   */
  void awaitReleasesSent(Duration timeout) throws InterruptedException {
    try {
      CompletableFuture.allOf(releasesInFlight.toArray(CompletableFuture[]::new))
          .get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException | TimeoutException e) {
      log.debug("not every release was answered before close: {}", LockScripts.unwrap(e).toString());
    }
  }

  /**
   * The reply within {@code commandTimeout}, or the time left before the calling thread's
   * deadline (plus the grace to learn a script's outcome) if that is shorter; a late or failed
   * reply is a store failure.
   */
  private long await(CompletableFuture<Long> reply, String key) {
    Duration timeout = Deadline.commandTimeout(commandTimeout, true);
    try {
      return reply.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      throw new WriteGuardInterruptedException("waiting for redis to answer for lock '" + LockArguments.shorten(key) + "'", e);
    } catch (TimeoutException e) {
      throw new RedisCommandTimeoutException("no answer within " + timeout.toMillis() + "ms"
          + (timeout.equals(commandTimeout) ? " (commandTimeout)" : " (the caller's deadline)"));
    } catch (ExecutionException e) {
      Throwable cause = LockScripts.unwrap(e);
      throw cause instanceof RuntimeException runtime ? runtime : new RedisException(cause);
    }
  }
}
