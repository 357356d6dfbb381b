package io.writeguard.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.mongo.MongoLockProvider;
import org.bson.types.ObjectId;

/**
 * The peer of WriteGuard's MongoDB lock: ShedLock's {@link MongoLockProvider}. ShedLock is made
 * for scheduled tasks and never waits: {@code lock()} returns empty when the lock is taken. Its
 * maintainer's advice for callers that must wait is to wrap the provider and, on empty, sleep a
 * while and try again; this does that every {@link #POLL} until {@link HotDocument#LOCK_WAIT}.
 * {@code lockAtMostFor} is {@link #AT_MOST} (ShedLock's guard against a crashed holder; no
 * renewal), {@code lockAtLeastFor} zero. Not fenced. Each extra poll counts as a retry.
 * Thread-safe.
 */
final class ShedLockRetried implements Contender {
  static final String NAME = "shedlock-mongo";
  static final String COLLECTION = "shedLock";
  static final Duration POLL = Duration.ofMillis(10);
  static final Duration AT_MOST = Duration.ofSeconds(30);

  private final MongoLockProvider provider;
  private final FindAndReplace write;

  ShedLockRetried(Backends backends) {
    this.provider = new MongoLockProvider(backends.database().getCollection(COLLECTION));
    this.write = new FindAndReplace(backends.hot(), () -> {});
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int add(ObjectId docId, long opId) {
    String name = "bench-" + docId.toHexString();
    long start = System.nanoTime();
    int attempts = 0;
    while (true) {
      attempts++;
      Optional<SimpleLock> lock =
          provider.lock(new LockConfiguration(Instant.now(), name, AT_MOST, Duration.ZERO));
      if (lock.isPresent()) {
        try {
          write.addBit(docId, opId);
          return attempts;
        } finally {
          lock.get().unlock();
        }
      }
      if (System.nanoTime() - start + POLL.toNanos() > HotDocument.LOCK_WAIT.toNanos()) {
        throw new BudgetExhaustedException("shedlock " + name + " not had after " + attempts
            + " polls", null);
      }
      sleep(POLL);
    }
  }

  private static void sleep(Duration pause) {
    try {
      Thread.sleep(pause.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted polling a ShedLock lock", e);
    }
  }
}
