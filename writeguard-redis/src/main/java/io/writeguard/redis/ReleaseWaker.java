package io.writeguard.redis;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.writeguard.Ticker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes a waiting acquirer when the holder of its key releases: {@code release.lua} publishes
 * on the key's channel, and this class is subscribed to the channels of the keys that have a
 * waiter in this process.
 *
 * <p>Why per-key channels and lazy unsubscribe: one shared channel would deliver every release
 * of every lock to every process. A channel per key reaches only the processes that wait for
 * that key. Subscribing costs a round trip on the pub/sub connection, so a subscription is kept
 * for {@link #IDLE_UNSUBSCRIBE} after its last waiter left, and a busy key does not subscribe
 * again for every waiter. Subscribe and unsubscribe are sent inside the map's per-key lock, so
 * they reach Redis in the order the map changed.
 *
 * <p>Pub/sub is at-most-once (a message can be lost during a reconnect) and key expiry sends
 * nothing, so a waiter never relies on a message alone: it also re-checks after the holder's
 * remaining lease and after the fallback interval. Listener callbacks run on Lettuce's event
 * loop and only release a semaphore. Thread-safe.
 */
final class ReleaseWaker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReleaseWaker.class);

  /** How long a subscription outlives its last waiter. */
  static final Duration IDLE_UNSUBSCRIBE = Duration.ofSeconds(5);

  private static final class Channel {
    final Semaphore signal = new Semaphore(0);
    final CompletableFuture<Void> subscribed;
    int waiters; // guarded by the map's lock for this channel
    long idleSince;

    Channel(CompletableFuture<Void> subscribed) {
      this.subscribed = subscribed;
    }
  }

  private final StatefulRedisPubSubConnection<String, String> connection;
  private final Ticker ticker;
  private final ConcurrentHashMap<String, Channel> channels = new ConcurrentHashMap<>();

  ReleaseWaker(StatefulRedisPubSubConnection<String, String> connection, Ticker ticker) {
    this.connection = connection;
    this.ticker = ticker;
    connection.addListener(new RedisPubSubAdapter<>() {
      @Override
      public void message(String channel, String message) {
        Channel c = channels.get(channel);
        if (c != null) {
          c.signal.release();
        }
      }
    });
  }

  /** One waiter's view of a channel; close it when the wait ends. */
  final class Registration implements AutoCloseable {
    private final String name;
    private final Channel channel;
    private boolean closed;

    private Registration(String name, Channel channel) {
      this.name = name;
      this.channel = channel;
    }

    /**
     * Waits until Redis confirmed the subscription, so a release published after this returns
     * is seen. False if it was not confirmed in time: the waiter then relies on re-checks.
     */
    boolean awaitSubscribed(Duration timeout) throws InterruptedException {
      try {
        channel.subscribed.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        return true;
      } catch (ExecutionException | TimeoutException e) {
        log.debug("subscription to release channel '{}' not confirmed within {}ms ({})",
            name, timeout.toMillis(), LockScripts.unwrap(e).toString());
        return false;
      }
    }

    /** Forgets releases seen so far; call before each attempt so only later ones wake. */
    void drain() {
      channel.signal.drainPermits();
    }

    /** Waits for a release message for at most {@code nanos}; true if one came. */
    boolean await(long nanos) throws InterruptedException {
      return channel.signal.tryAcquire(Math.max(0, nanos), TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      channels.computeIfPresent(name, (k, c) -> {
        if (--c.waiters == 0) {
          c.idleSince = ticker.nanoTime();
        }
        return c;
      });
    }
  }

  /** Starts listening on {@code channelName}, subscribing if nobody in this process does yet. */
  Registration register(String channelName) {
    Channel channel = channels.compute(channelName, (k, c) -> {
      Channel ch = c;
      if (ch == null || (ch.waiters == 0 && ch.subscribed.isCompletedExceptionally())) {
        ch = new Channel(connection.async().subscribe(k).toCompletableFuture());
      }
      ch.waiters++;
      return ch;
    });
    return new Registration(channelName, channel);
  }

  /** Unsubscribes channels idle for longer than {@link #IDLE_UNSUBSCRIBE}; run periodically. */
  void unsubscribeIdle() {
    long now = ticker.nanoTime();
    for (String name : channels.keySet()) {
      channels.computeIfPresent(name, (k, c) -> {
        if (c.waiters == 0 && now - c.idleSince >= IDLE_UNSUBSCRIBE.toNanos()) {
          connection.async().unsubscribe(k);
          return null;
        }
        return c;
      });
    }
  }

  /** Channels subscribed now (with or without waiters). */
  int subscriptions() {
    return channels.size();
  }

  @Override
  public void close() {
    connection.close();
  }
}
