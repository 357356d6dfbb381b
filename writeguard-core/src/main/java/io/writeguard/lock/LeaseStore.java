package io.writeguard.lock;

/**
 * Where a {@link LeaseLockEngine} keeps its leases: MongoDB, Redis. A store only takes, renews
 * and releases one lease at a time and keeps each key's fencing tokens rising (its token floor);
 * queueing, hand-off between threads, the watchdog and lost-lease signalling are the engine's.
 *
 * <p>Every take carries an <b>attempt id</b>, unique across engines (a random prefix per engine
 * plus a count), so two services that share an owner id never share one. A store records it with
 * the lease and treats a take whose key already holds this owner's lease under the same attempt
 * as acquired (same tokens), so a take that is sent twice (driver retry, client resend after a
 * reconnect) does not lock its own caller out; {@link #abandon} frees a lease by attempt when
 * the caller never learnt whether its take succeeded. Renew and release match owner plus
 * attempt, so they never touch a lease that another holder took after this one ran out.
 *
 * <p>For lock service implementations, not application code. Implementations are thread-safe.
 */
public interface LeaseStore {

  /** The tokens of a lease just taken: {@code first..top}, above every token the key had. */
  record Grant(long first, long top) {}

  /**
   * What one take answered: the grant, or null when another owner holds the key; then
   * {@code retryHintNanos} is how long the holder's lease has left, at most (or
   * {@code Long.MAX_VALUE} when unknown).
   */
  record Take(Grant grant, long retryHintNanos) {
    public static Take busy(long retryHintNanos) {
      return new Take(null, retryHintNanos);
    }
  }

  /** Where the leases live, for messages: {@code "db.locks"}, {@code "redis wg:lock:"}. */
  String describe();

  /**
   * One atomic attempt to take {@code key} for {@code owner} with a block of {@code block}
   * tokens. {@code queued} says the caller will wait if it is busy (a store may tell the holder).
   *
   * @throws RuntimeException if the store failed; the outcome is then unknown
   */
  Take take(String key, String owner, String attempt, int block, boolean queued);

  /** Extends the lease; false if the key no longer holds this owner's attempt. */
  boolean renew(String key, String owner, String attempt, Grant grant);

  /**
   * Frees the key if it still holds this owner's attempt. Returns how long this process should
   * wait before taking the key again, so another process that asked for it gets its turn (0:
   * no need). A store may send the release without waiting for its answer.
   */
  long release(String key, String owner, String attempt, Grant grant);

  /** Frees the key if it holds this owner's attempt, whose take's outcome is unknown. */
  void abandon(String key, String owner, String attempt);

  /** How a caller waits for a busy key between takes; one per waiting caller. */
  BusyWait busyWait(String key);

  /** One caller's wait for a busy key. Not thread-safe: used by the waiting thread only. */
  interface BusyWait extends AutoCloseable {
    /** Called right before each take. */
    default void beforeTake() {}

    /**
     * Waits before the next take: at most {@code maxNanos}, usually less. {@code attempt}
     * counts takes from 1; {@code retryHintNanos} is the busy answer's hint.
     */
    void pause(int attempt, long retryHintNanos, long maxNanos) throws InterruptedException;

    @Override
    default void close() {}
  }
}
