package io.writeguard.update;

import java.time.Duration;

/**
 * The write was sent but its outcome is unknown: the connection broke or timed out after
 * sending, or the server applied it but could not confirm the write concern. It may or may
 * not have been applied. Group commit also answers with it a writer whose change went out in
 * a merged write when an index created since the collection's indexes were read may have
 * refused its update alone (a later caller of the round changed the same index's paths, so
 * the state it would have stored alone never reached the server).
 *
 * <p>Not retried, on purpose. Re-reading and applying the mutation again is only safe if the
 * first write did not happen; if it did, the version has moved, the retry reads the new state
 * and applies the mutation a second time (an increment counted twice). Nothing in the document
 * says which writer moved the version, so the library cannot tell. The caller decides: re-read
 * and check, or make the change idempotent. (The driver's own retryable writes, on by default
 * on replica sets, already retry one such failure exactly once with a server-side transaction
 * number; this exception means that did not help.) Immutable and thread-safe.
 */
public class WriteOutcomeUnknownException extends UpdateFailedException {
  private static final long serialVersionUID = 1L;

  private final long fromVersion;

  public WriteOutcomeUnknownException(
      String collection, Object key, int attempts, Duration elapsed, long fromVersion,
      Throwable cause) {
    super(collection, key, attempts, elapsed, "from version " + fromVersion
        + " may or may not have been applied; not retried, since retrying would apply the"
        + " change twice if it was; re-read the document to find out", cause);
    this.fromVersion = fromVersion;
  }

  /**
   * For a write that filtered on no version (a counter's {@code $inc}, a fenced write): the
   * write was sent and its outcome is unknown. {@link #fromVersion()} is -1.
   *
   * @param what the write, e.g. {@code "decrement by 5 of shard 2"}
   */
  public WriteOutcomeUnknownException(
      String collection, Object key, int attempts, Duration elapsed, String what,
      Throwable cause) {
    super(collection, key, attempts, elapsed, what + " may or may not have been applied; not"
        + " retried, since retrying would apply it twice if it was; re-read to find out", cause);
    this.fromVersion = -1;
  }

  /**
   * The version the write filtered on (0 for the adoption of a legacy document, -1 for a write
   * that filtered on no version).
   */
  public long fromVersion() {
    return fromVersion;
  }
}
