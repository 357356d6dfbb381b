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
   * The server matched the exact value and type read but reported nothing modified: it compares
   * numbers by value when applying {@code $set}, so an int32 7 or a double 7.0 stays as it is
   * when set to int64 7. MongoDB compares the BSON bytes and converts; the embedded
   * mongo-java-server does not. Reported, never counted as fixed.
   */
  NOT_APPLIED_BY_SERVER,
  /** The problem has no single safe repair; nothing was written. */
  NEEDS_PERSON
}
