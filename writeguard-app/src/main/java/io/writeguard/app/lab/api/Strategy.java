package io.writeguard.app.lab.api;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.lettuce.core.RedisClient;
import io.writeguard.Ticker;
import io.writeguard.WriteGuardException;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import java.util.Objects;
import java.util.Optional;
import org.bson.Document;

/**
 * One way of applying a scenario's operations to MongoDB (naive, atomic operator, optimistic
 * versioned update, a lock, ...). Created per run by a {@link StrategyFactory}; one instance
 * is shared by all clients of the run, so implementations must be thread-safe.
 *
 * <p>This file holds the whole contract of a strategy: the {@link StrategyFactory} that makes
 * one per run, the {@link StrategyContext} it gets (collection, listener, clock, client,
 * {@link LabServices}), and the {@link LabOperationException} it throws for an operation
 * that was not acknowledged.
 */
@FunctionalInterface
public interface Strategy<O> extends AutoCloseable {

  /**
   * Applies {@code op}. Returns normally only when the server acknowledged the write (the lab
   * then counts the operation and expects its effect in the documents at the end); throws
   * otherwise. Attempts, conflicts and retries are reported to the run's listener
   * ({@link StrategyContext#listener()}).
   */
  void apply(O op);

  /**
   * True for a strategy that holds an exclusive lock around each operation and writes under
   * it without any other check: a conflict or a fenced rejection it meets then means the lock
   * let two writers in at once, and the lab counts it in {@code lock_violations} and fails
   * the run. Default: false.
   */
  default boolean holdsExclusiveLock() {
    return false;
  }

  /**
   * Releases what the strategy opened for its run (lock services, connections). The runner
   * calls it once, after the run's last operation. Default: nothing.
   */
  @Override
  default void close() {}

  /** Creates a fresh {@link Strategy} for one run (so no state leaks between runs). */
  @FunctionalInterface
  interface StrategyFactory<O> {
    Strategy<O> create(StrategyContext context);
  }

  /**
   * What a strategy gets for one run: the run's collection, the listener that counts its
   * attempts, conflicts, retries, lock waits and fenced rejections (already wrapped so it never
   * throws), the scope to report them under, the clock to time them with, the client the
   * collection belongs to (for strategies that need sessions, such as transactions; null when
   * the runner was given none), the other servers it may use (lock collections, Redis), and
   * whether strategies that can combine concurrent updates of one document do so (the lab's
   * {@code --group-commit}). Immutable.
   */
  record StrategyContext(
      MongoCollection<Document> collection,
      WriteGuardListener listener,
      OperationScope scope,
      Ticker ticker,
      MongoClient client,
      LabServices services,
      boolean groupCommit) {
    public StrategyContext {
      Objects.requireNonNull(collection, "collection");
      Objects.requireNonNull(listener, "listener");
      Objects.requireNonNull(scope, "scope");
      Objects.requireNonNull(ticker, "ticker");
      Objects.requireNonNull(services, "services");
    }

    /**
     * A context with neither a client nor other servers ({@link LabServices#none()}), for
     * strategies that need only the collection.
     */
    public StrategyContext(MongoCollection<Document> collection, WriteGuardListener listener,
        OperationScope scope, Ticker ticker) {
      this(collection, listener, scope, ticker, null, LabServices.none(), true);
    }
  }

  /**
   * Servers a strategy may use besides its run's collection: the lab's database (for a lock
   * collection of its own) and, when a strategy that needs it was selected, a Redis client.
   * Owned by the command that opened them; a strategy opens connections of its own from them
   * and closes those in {@link Strategy#close()}. Immutable and thread-safe.
   */
  final class LabServices {
    private static final LabServices NONE = new LabServices(null, null, false);

    private final MongoDatabase database;
    private final RedisClient redis;
    private final boolean shared;

    private LabServices(MongoDatabase database, RedisClient redis, boolean shared) {
      this.database = database;
      this.redis = redis;
      this.shared = shared;
    }

    /**
     * The same servers as used by one process of several ({@code --processes}): a run's lock
     * collection is shared with the other processes, so the lab's parent drops it after the
     * round, not the strategy when this process's clients are done.
     */
    public static LabServices shared(MongoDatabase database, RedisClient redis) {
      return new LabServices(Objects.requireNonNull(database, "database"), redis, true);
    }

    /** True when other processes run the same strategy on the same documents and locks. */
    public boolean shared() {
      return shared;
    }

    /** No services: strategies that need one refuse to start. */
    public static LabServices none() {
      return NONE;
    }

    /** The lab's database, and Redis when {@code redis} is not null. */
    public static LabServices of(MongoDatabase database, RedisClient redis) {
      return new LabServices(Objects.requireNonNull(database, "database"), redis, false);
    }

    /** The database the run's collections live in. */
    public Optional<MongoDatabase> database() {
      return Optional.ofNullable(database);
    }

    /** The Redis client, when the run selected a strategy that needs Redis. */
    public Optional<RedisClient> redis() {
      return Optional.ofNullable(redis);
    }
  }

  /**
   * One lab operation was not acknowledged for a reason the strategy found itself (the target
   * document was missing, the write matched nothing). The lab counts it as an error.
   */
  final class LabOperationException extends WriteGuardException {
    private static final long serialVersionUID = 1L;

    public LabOperationException(String message) {
      super(message);
    }
  }
}
