package io.writeguard.app.lab;

/**
 * One way of applying a scenario's operations to MongoDB (naive, atomic operator, optimistic
 * versioned update, a lock, ...). Created per run by a {@link StrategyFactory}; one instance
 * is shared by all clients of the run, so implementations must be thread-safe.
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
}
