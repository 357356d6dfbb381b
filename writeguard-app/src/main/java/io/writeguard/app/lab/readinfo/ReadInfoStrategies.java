package io.writeguard.app.lab.readinfo;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.lettuce.core.RedisClient;
import io.writeguard.app.lab.api.Strategy;
import io.writeguard.app.lab.api.Strategy.StrategyContext;
import io.writeguard.app.lab.readinfo.ReadInfoScenario.Mark;
import io.writeguard.app.readinfo.MarkReadDeps;
import io.writeguard.app.readinfo.MarkReadStrategies;
import io.writeguard.app.readinfo.MarkReadStrategy;
import io.writeguard.app.readinfo.ReadItem;
import io.writeguard.lock.LockService;
import io.writeguard.lock.MongoLeaseLockService;
import io.writeguard.redis.RedisLockService;
import io.writeguard.update.RetryPolicy;
import java.util.Objects;

/**
 * The {@code readinfo} strategies: each runs one of the shared mark-as-read strategies
 * ({@code io.writeguard.app.readinfo}), the same code the HTTP service runs, and the lab
 * only adapts it (its listener, ticker, retry policy and, for the locks, lock services of
 * the run's own). Registered in {@link ReadInfoScenario#entry()}.
 */
final class ReadInfoStrategies {
  private ReadInfoStrategies() {}

  /**
   * A lab strategy that runs one of the shared mark-as-read strategies
   * ({@link MarkReadStrategies}), the same code the HTTP service runs. Closing it closes what was
   * opened for the run (lock services). Thread-safe: the shared strategies are.
   */
  static final class SharedReadInfo implements Strategy<Mark> {
    private final MarkReadStrategy strategy;
    private final AutoCloseable resources;
    private final boolean exclusiveLock;

    SharedReadInfo(MarkReadStrategy strategy, AutoCloseable resources) {
      this(strategy, resources, false);
    }

    /** {@code exclusiveLock}: see {@link Strategy#holdsExclusiveLock()}. */
    SharedReadInfo(MarkReadStrategy strategy, AutoCloseable resources, boolean exclusiveLock) {
      this.strategy = Objects.requireNonNull(strategy, "strategy");
      this.resources = Objects.requireNonNull(resources, "resources");
      this.exclusiveLock = exclusiveLock;
    }

    /** The lab's defaults: its listener and ticker, the given retry policy and hook. */
    static MarkReadDeps.Builder deps(StrategyContext context, RetryPolicy policy,
        Runnable betweenReadAndWrite) {
      return MarkReadDeps.builder(context.collection())
          .listener(context.listener())
          .ticker(context.ticker())
          .retryPolicy(policy)
          .groupCommit(context.groupCommit())
          .betweenReadAndWrite(betweenReadAndWrite);
    }

    /** {@code name} on the lab's defaults, with nothing to close. */
    static SharedReadInfo create(String name, StrategyContext context, RetryPolicy policy,
        Runnable betweenReadAndWrite) {
      return new SharedReadInfo(
          MarkReadStrategies.create(name, deps(context, policy, betweenReadAndWrite).build()),
          () -> {});
    }

    @Override
    public void apply(Mark mark) {
      strategy.mark(new ReadItem(mark.docId(), mark.key(), mark.skey(), mark.index()), mark.user());
    }

    @Override
    public boolean holdsExclusiveLock() {
      return exclusiveLock;
    }

    @Override
    public void close() {
      try {
        resources.close();
      } catch (Exception e) {
        throw new IllegalStateException("closing the resources of lab strategy '"
            + strategy.name() + "' failed: " + e, e);
      }
    }
  }

  /**
   * The seed's route without its lock (the shared {@code naive} mark): find the document, add the
   * user in Java, replace the whole document. Two clients that read the same document both write
   * it back, and the later replace erases the earlier one's mark. It is here to be measured,
   * never to be used. Thread-safe (it keeps no state).
   */
  static final class NaiveReadInfo implements Strategy<Mark> {
    private final SharedReadInfo shared;

    NaiveReadInfo(StrategyContext context) {
      this(context, () -> {});
    }

    /** {@code betweenReadAndWrite} lets a test hold clients between find and replace. */
    NaiveReadInfo(StrategyContext context, Runnable betweenReadAndWrite) {
      this.shared = SharedReadInfo.create("naive", context, MarkReadDeps.DEFAULT_RETRY,
          betweenReadAndWrite);
    }

    @Override
    public void apply(Mark mark) {
      shared.apply(mark);
    }
  }

  /**
   * The mark as one atomic operator (the shared {@code atomic} mark): {@code $addToSet} on
   * {@code infos.<key>.<skey>.<i>.read}, filtered on the item's existence. The server applies it
   * to the current document, so there is nothing to lose and nothing to retry, and a repeated
   * click changes nothing. Thread-safe (it keeps no state).
   */
  static final class AtomicReadInfo implements Strategy<Mark> {
    private final SharedReadInfo shared;

    AtomicReadInfo(StrategyContext context) {
      this.shared = SharedReadInfo.create("atomic", context, MarkReadDeps.DEFAULT_RETRY, () -> {});
    }

    @Override
    public void apply(Mark mark) {
      shared.apply(mark);
    }
  }

  /**
   * The mark as an optimistic versioned update (the shared {@code optimistic} mark): read the
   * document, compute the item's new {@code read} list in Java, and write it with {@code $set}
   * only if the document's version is still the one read; a miss is a conflict, retried from a
   * fresh read with full-jitter backoff. Thread-safe: the updater is.
   */
  static final class OptimisticReadInfo implements Strategy<Mark> {
    /**
     * The lab's retry policy: 30 attempts, 10 s deadline, full-jitter backoff from 5 ms doubling
     * to 500 ms ({@link MarkReadDeps#DEFAULT_RETRY}; docs/lab.md tells how it was chosen). Giving
     * up is counted as an error, never as an acknowledged mark.
     */
    static final RetryPolicy POLICY = MarkReadDeps.DEFAULT_RETRY;

    private final SharedReadInfo shared;

    OptimisticReadInfo(StrategyContext context) {
      this.shared = SharedReadInfo.create("optimistic", context, POLICY, () -> {});
    }

    /**
     * For tests that stage an interleaving: {@code betweenReadAndWrite} holds clients after the
     * read of an attempt. Group commit is off, so every mark runs its own compare-and-set
     * (with it on, the marks of one document queue behind one reader and never meet there).
     */
    OptimisticReadInfo(StrategyContext context, RetryPolicy policy, Runnable betweenReadAndWrite) {
      this.shared = new SharedReadInfo(MarkReadStrategies.create("optimistic",
          SharedReadInfo.deps(context, policy, betweenReadAndWrite).groupCommit(false).build()),
          () -> {});
    }

    @Override
    public void apply(Mark mark) {
      shared.apply(mark);
    }
  }

  /**
   * The lab's lock strategies and {@code adaptive}: each run gets lock services of its own,
   * reporting lock waits to the run's listener, and closes them at the end.
   *
   * <p>The lease-lock strategies write the way a user of a lock does: a fenced read and a fenced
   * replace, without a version filter ({@link MarkReadDeps.Builder#versionFilterUnderLock}).
   * Then only the lock and its fence stand between two writers, so a lock that lets two holders
   * in loses marks or meets fenced rejections, both of which fail the run, instead of being
   * rescued by a version check that would merely count a conflict.
   *
   * <ul>
   *   <li>{@code local-lock}: a {@code LocalLockService} (one process only);
   *   <li>{@code mongo-lock}: a {@code MongoLeaseLockService} on collection
   *       {@code <run collection>_locks}, dropped when the run ends;
   *   <li>{@code redis-lock}: a {@code RedisLockService} on the lab's Redis client, keys
   *       {@code wg:lab:<run collection>:<_id>} (released ones vanish; the token counter
   *       {@code wg:lab:} stays), with the service's defaults: like the MongoDB lock, it passes
   *       its lease on between the lab's waiting clients ({@code handoffBatch} 32 by default);
   *   <li>{@code adaptive}: optimistic, a hot document's marks queue on a {@code LocalLockService}.
   * </ul>
   */
  static final class LockReadInfo {
    static final String REDIS_PREFIX = "wg:lab:";

    private LockReadInfo() {}

    static Strategy<Mark> local(StrategyContext context) {
      return new SharedReadInfo(MarkReadStrategies.create("local-lock",
          SharedReadInfo.deps(context, OptimisticReadInfo.POLICY, () -> {}).build()), () -> {},
          true);
    }

    static Strategy<Mark> adaptive(StrategyContext context) {
      return SharedReadInfo.create("adaptive", context, OptimisticReadInfo.POLICY, () -> {});
    }

    static Strategy<Mark> mongo(StrategyContext context) {
      MongoDatabase database = context.services().database().orElseThrow(() ->
          new IllegalStateException("mongo-lock needs the lab's database for its lock collection"));
      MongoCollection<?> lockCollection = database.getCollection(
          context.collection().getNamespace().getCollectionName() + "_locks");
      MongoLeaseLockService locks = MongoLeaseLockService.builder(lockCollection)
          .listener(context.listener())
          .build();
      try {
        return fenced("mongo-lock", context, locks, () -> {
          locks.close();
          if (!context.services().shared()) { // else other processes still hold its locks
            lockCollection.drop();
          }
        });
      } catch (RuntimeException e) {
        locks.close();
        throw e;
      }
    }

    static Strategy<Mark> redis(StrategyContext context) {
      RedisClient client = context.services().redis().orElseThrow(() ->
          new IllegalStateException("redis-lock needs Redis, and the lab has none"));
      RedisLockService locks = RedisLockService.builder()
          .client(client)
          .keyPrefix(REDIS_PREFIX)
          .listener(context.listener())
          .build();
      try {
        return fenced("redis-lock", context, locks, locks::close);
      } catch (RuntimeException e) {
        locks.close();
        throw e;
      }
    }

    /**
     * Lease-lock strategy {@code name} ({@code mongo-lock} or {@code redis-lock}) on
     * {@code locks}: fenced read and fenced replace without a version filter, an exclusive-lock
     * strategy for the lab's {@code lock_violations}. Tests plug a broken lock in here.
     */
    static Strategy<Mark> fenced(String name, StrategyContext context, LockService locks,
        AutoCloseable resources) {
      return fenced(name, context, locks, resources, () -> {});
    }

    /** The same, running {@code betweenReadAndWrite} between each fenced read and its write. */
    static Strategy<Mark> fenced(String name, StrategyContext context, LockService locks,
        AutoCloseable resources, Runnable betweenReadAndWrite) {
      MarkReadDeps.Builder deps = SharedReadInfo.deps(context, OptimisticReadInfo.POLICY,
          betweenReadAndWrite).versionFilterUnderLock(false);
      if (name.equals("redis-lock")) {
        deps.redisLocks(locks);
      } else {
        deps.mongoLocks(locks);
      }
      return new SharedReadInfo(MarkReadStrategies.create(name, deps.build()), resources, true);
    }
  }
}
