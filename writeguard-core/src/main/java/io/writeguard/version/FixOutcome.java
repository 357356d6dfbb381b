package io.writeguard.version;

/**
 * What {@link VersionAuditor#fix(VersionFinding)} did to one document.
 * Immutable and thread-safe (an enum).
 */
public enum FixOutcome {
  /** The version still held the value read and is now the repaired int64. */
  FIXED,
  /**
   * The version no longer held the value read (or the document is gone): someone wrote it in
   * between, so it was left alone rather than overwritten.
   */
  CHANGED_CONCURRENTLY,
  /**
   * The server matched the exact value and type read but kept the old number type, and the
   * guarded whole-document replace that follows could not be made either (a top-level field
   * name a filter cannot address) or still left the old type. With MongoDB ({@code $set}
   * converts) and the embedded mongo-java-server (the replace converts) this does not happen in
   * practice. Reported, never counted as fixed.
   */
  NOT_APPLIED_BY_SERVER,
  /** The problem has no single safe repair; nothing was written. */
  NEEDS_PERSON
}
