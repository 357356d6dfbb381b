package io.writeguard.version;

import io.writeguard.WriteGuardException;
import java.util.Objects;

/**
 * A stored document's version field cannot be used for optimistic writes: it is missing (and
 * the {@link VersionPolicy} refuses legacy documents), {@code null}, not an integer, negative,
 * or at {@code Long.MAX_VALUE}. Nothing was written. Repair the collection with
 * {@code writeguard audit --fix}, except a version at the maximum, which needs a person.
 * Immutable and thread-safe.
 */
public class InvalidVersionException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  /** What is wrong with the stored version. */
  public enum Problem {
    MISSING, NULL, NOT_AN_INTEGER, NEGATIVE, AT_MAXIMUM
  }

  private final transient Object documentId;
  private final String field;
  private final Problem problem;

  public InvalidVersionException(Object documentId, String field, Problem problem, String found) {
    super("document _id=" + documentId + " has no usable version field '" + field + "': "
        + describe(problem) + " (found: " + found + "); the version must be a non-negative"
        + " int64; nothing was written; " + (problem == Problem.AT_MAXIMUM
            ? "`writeguard audit` reports it as AT_MAXIMUM, which needs a person (--fix never"
                + " writes a version the next update cannot raise)"
            : "repair with `writeguard audit --fix`"));
    this.documentId = documentId;
    this.field = Objects.requireNonNull(field, "field");
    this.problem = Objects.requireNonNull(problem, "problem");
  }

  private static String describe(Problem problem) {
    switch (problem) {
      case MISSING:
        return "it is missing and this policy refuses legacy documents";
      case NULL:
        return "it is null";
      case NOT_AN_INTEGER:
        return "it is not an integer";
      case NEGATIVE:
        return "it is negative";
      default:
        return "it is at Long.MAX_VALUE and cannot be incremented";
    }
  }

  public Object documentId() {
    return documentId;
  }

  public String field() {
    return field;
  }

  public Problem problem() {
    return problem;
  }
}
