package io.writeguard.lock;

import io.writeguard.WriteGuardException;

/**
 * A fenced write was refused by MongoDB: the document was already written under a newer
 * fencing token, so this holder's lease must have expired. Nothing was written.
 * Immutable and thread-safe.
 */
public class StaleLockException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final Object documentId;
  private final long token;

  public StaleLockException(String collection, Object documentId, long token) {
    this(documentId, token, "fenced write to " + collection + " _id=" + documentId + " with token " + token
        + " refused: a newer lock holder has written it (lease expired?); nothing was written");
  }

  private StaleLockException(Object documentId, long token, String message) {
    super(message);
    this.documentId = documentId;
    this.token = token;
  }

  /**
   * The same refusal as {@code other} (message, document, token and stack), for a subclass
   * that marks where it was raised.
   */
  protected StaleLockException(StaleLockException other) {
    this(other.documentId, other.token, other.getMessage());
    setStackTrace(other.getStackTrace());
  }

  /**
   * The write was refused before it was sent: the lock handle already knew its lease was lost
   * (renewal failed or the lease ran out), so another holder may own the lock now.
   */
  public static StaleLockException leaseLost(String collection, Object documentId, String lockKey, long token) {
    return new StaleLockException(documentId, token, "fenced write to " + collection + " _id=" + documentId
        + " refused: the lease of lock '" + lockKey + "' (token " + token
        + ") was lost before the write; nothing was written");
  }

  public Object documentId() {
    return documentId;
  }

  public long token() {
    return token;
  }
}
