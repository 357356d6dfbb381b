package io.writeguard.redis;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.lt;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.push;
import static com.mongodb.client.model.Updates.set;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.result.UpdateResult;
import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.LockHandle;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.testing.Concurrently;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.bson.Document;

/**
 * Lock load for failover tests: threads spread over several lock services (each one a "process"
 * with its own owner and connections) take the Redis lock for a few keys in turn and, under it,
 * make a fenced read-change-write of one MongoDB document per key:
 *
 * <pre>
 * filter {_id: key, version: v, fence: {$lt: token}}
 * update {$inc: {version: 1, counter: 1}, $set: {fence: token}, $push: {ops: opId}}
 * </pre>
 *
 * A write counts as acknowledged when MongoDB says it modified the document. Redis failures
 * (the failover) are counted and retried after a pause; they never stop the load.
 *
 * <p>{@link #assertNothingLost()} is the exact check: per key, the counter equals the number of
 * acknowledged writes and {@code ops} holds every acknowledged op once and nothing else.
 * {@link #assertTokensRose} checks what the token scheme promises across a failover.
 * Thread-safe: records go to concurrent queues.
 */
final class FailoverLoad {
  /** A lock handle given to a thread: key, token, when ({@code System.nanoTime}). */
  record Taken(String key, long token, long atNanos) {}

  /** An acknowledged fenced write. */
  record Ack(String key, long token, String op, long atNanos) {}

  private final MongoCollection<Document> docs;
  private final List<String> keys;
  private final List<RedisLockService> services;
  private final Queue<Taken> taken = new ConcurrentLinkedQueue<>();
  private final Queue<Ack> acks = new ConcurrentLinkedQueue<>();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong lockFailures = new AtomicLong();
  private volatile boolean stop;

  FailoverLoad(MongoCollection<Document> docs, List<String> keys, List<RedisLockService> services) {
    this.docs = docs;
    this.keys = keys;
    this.services = services;
    for (String key : keys) {
      docs.insertOne(new Document("_id", key).append("version", 0L).append("counter", 0L)
          .append("fence", 0L).append("ops", new ArrayList<String>()));
    }
  }

  /**
   * Runs {@code threads} writers until {@code scenario} (run on the calling thread meanwhile)
   * returns; everything bounded by {@code timeout}.
   */
  void run(int threads, Duration timeout, Concurrently.Meanwhile scenario) throws Exception {
    Concurrently.run(threads, timeout, this::write, () -> {
      try {
        scenario.run();
      } finally {
        stop = true;
      }
    });
  }

  private void write(int thread) throws InterruptedException {
    RedisLockService locks = services.get(thread % services.size());
    for (long n = 0; !stop; n++) {
      String key = keys.get((int) ((thread + n) % keys.size()));
      LockHandle handle;
      try {
        handle = locks.acquire(key, Duration.ofSeconds(10));
      } catch (LockBackendException | LockTimeoutException e) {
        lockFailures.incrementAndGet(); // Redis failing over: try again shortly
        Thread.sleep(20);
        continue;
      }
      try (handle) {
        long token = handle.token();
        taken.add(new Taken(key, token, System.nanoTime()));
        Document doc = docs.find(eq("_id", key)).first();
        String op = "t" + thread + "-" + n;
        UpdateResult result = docs.updateOne(
            and(eq("_id", key), eq("version", doc.getLong("version")), lt("fence", token)),
            combine(inc("version", 1L), inc("counter", 1L), set("fence", token), push("ops", op)));
        if (result.getModifiedCount() == 1) {
          acks.add(new Ack(key, token, op, System.nanoTime()));
        } else {
          refused.incrementAndGet(); // two holders overlapped (lock lost in the failover): fenced
        }
      }
      Thread.sleep(2); // keeps the ops arrays small enough for the in-memory MongoDB
    }
  }

  long acks(String key, long sinceNanos) {
    return acks.stream().filter(a -> a.key().equals(key) && a.atNanos() - sinceNanos > 0).count();
  }

  long acks() {
    return acks.size();
  }

  long refused() {
    return refused.get();
  }

  long lockFailures() {
    return lockFailures.get();
  }

  /** Every acknowledged write is in its document exactly once, and nothing else is. */
  void assertNothingLost() {
    for (String key : keys) {
      Document doc = docs.find(eq("_id", key)).first();
      List<String> ops = doc.getList("ops", String.class);
      List<String> acked = acks.stream().filter(a -> a.key().equals(key)).map(Ack::op).toList();
      assertThat(doc.getLong("counter")).as("counter of " + key).isEqualTo(acked.size());
      assertThat(ops).as("ops of " + key + ": each acknowledged write once")
          .doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(acked);
    }
  }

  /**
   * Per key, every token handed out after {@code afterNanos} is above every token handed out
   * before {@code beforeNanos}; returns how many keys had handles on both sides.
   */
  int assertTokensRose(long beforeNanos, long afterNanos) {
    int compared = 0;
    for (String key : keys) {
      Set<Long> before = tokens(key, t -> t.atNanos() - beforeNanos < 0);
      Set<Long> after = tokens(key, t -> t.atNanos() - afterNanos > 0);
      if (!before.isEmpty() && !after.isEmpty()) {
        compared++;
        assertThat(after.stream().mapToLong(Long::longValue).min().getAsLong())
            .as("lowest token of " + key + " after the failover vs highest before it")
            .isGreaterThan(before.stream().mapToLong(Long::longValue).max().getAsLong());
      }
    }
    return compared;
  }

  private Set<Long> tokens(String key, java.util.function.Predicate<Taken> when) {
    return taken.stream().filter(t -> t.key().equals(key) && when.test(t)).map(Taken::token)
        .collect(Collectors.toCollection(HashSet::new));
  }

  /** Polls {@code done} every 50 ms for at most {@code timeout}; fails naming {@code what}. */
  static void await(String what, Duration timeout, BooleanSupplier done) {
    long until = System.nanoTime() + timeout.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() - until > 0) {
        throw new AssertionError("not within " + timeout + ": " + what);
      }
      RedisProcess.sleep(50);
    }
  }

  @Override
  public String toString() {
    return "acks " + acks() + ", fenced refusals " + refused() + ", lock failures " + lockFailures();
  }
}
