package io.writeguard.idempotency;

/** What {@link OperationIdGuard#apply} did. Immutable and thread-safe (an enum). */
public enum OpResult {
  /** The update was applied now. */
  APPLIED,
  /** The document already records this operation id: an earlier try applied it. */
  ALREADY_APPLIED,
  /** No such document, or the extra condition does not hold; nothing was written. */
  NOT_MATCHED
}
