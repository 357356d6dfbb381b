package io.writeguard.version;

import io.writeguard.WriteGuardException;

/**
 * A version audit or fix stopped because MongoDB failed (unreachable, not authorized, ...). The
 * message names the collection, how many documents were read and the cause. Every write made
 * before the failure was a complete conditional update of one document; nothing is half-done.
 * Immutable and thread-safe.
 */
public final class VersionAuditException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final String namespace;
  private final long documentsRead;

  VersionAuditException(String message, String namespace, long documentsRead, Throwable cause) {
    super(message, cause);
    this.namespace = namespace;
    this.documentsRead = documentsRead;
  }

  public String namespace() {
    return namespace;
  }

  /** Documents read before the failure. */
  public long documentsRead() {
    return documentsRead;
  }
}
