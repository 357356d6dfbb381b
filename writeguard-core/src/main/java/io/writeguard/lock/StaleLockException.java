package io.writeguard.lock;

import io.writeguard.WriteGuardException;

/**
 * A fenced write was refused by MongoDB: the document was already written under a newer
 * fencing token, so this holder's lease must have expired. Nothing was written.
 */
public class StaleLockException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final Object documentId;
  private final long token;

  public StaleLockException(String collection, Object documentId, long token) {
    super("fenced write to " + collection + " _id=" + documentId + " with token " + token
        + " refused: a newer lock holder has written it (lease expired?); nothing was written");
    this.documentId = documentId;
    this.token = token;
  }

  public Object documentId() {
    return documentId;
  }

  public long token() {
    return token;
  }
}
