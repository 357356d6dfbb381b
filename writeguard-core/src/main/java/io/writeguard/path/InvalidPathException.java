package io.writeguard.path;

import io.writeguard.WriteGuardException;

/**
 * A field path segment was rejected: the message names the segment (control characters
 * escaped, long values shortened), its position in the path and why.
 *
 * <p>Thrown for bad input, typically request data that was about to become part of an update
 * path; an HTTP layer maps it to 400 and writes nothing. Immutable and thread-safe.
 */
public final class InvalidPathException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  /** Why a segment was rejected. */
  public enum Reason {
    /** The segment was {@code null}. */
    NULL("is null"),
    /** The segment was the empty string (also {@code "a..b"}, a leading or trailing dot). */
    EMPTY("is empty"),
    /** The segment was only whitespace: never a deliberate key, invisible in logs. */
    BLANK("is only whitespace"),
    /** The segment was longer than {@link PathSegments#MAX_LENGTH}. */
    TOO_LONG("is longer than " + PathSegments.MAX_LENGTH + " chars"),
    /** The segment started with {@code $}: an operator ({@code $where}, {@code $[]}), not a key. */
    DOLLAR_PREFIX("starts with '$' (an operator or positional placeholder, not a field name)"),
    /** The segment contained {@code .}, which would split it into two segments. */
    CONTAINS_DOT("contains '.' (it would split into two path segments)"),
    /** The segment contained a NUL character, which ends a BSON field name. */
    CONTAINS_NUL("contains NUL (it ends a BSON field name)"),
    /** The segment contained another control character (newline, tab, DEL, C1). */
    CONTROL_CHARACTER("contains a control character"),
    /** The segment contained half of a UTF-16 surrogate pair, which the encoder turns into '?'. */
    UNPAIRED_SURROGATE("contains an unpaired UTF-16 surrogate (it would be stored as '?')"),
    /** An array index that is not a canonical decimal ({@code 01}, {@code +1}, {@code 1e3}). */
    NOT_AN_INDEX("is not an array index: expected 0 or a positive decimal integer without sign,"
        + " leading zeros, spaces or exponent"),
    /** An array index below zero. */
    NEGATIVE_INDEX("is a negative array index"),
    /** An array index past {@link PathSegments#MAX_INDEX}. */
    INDEX_TOO_LARGE("is past the largest array index " + PathSegments.MAX_INDEX),
    /** The path would have more than {@link PathSegments#MAX_SEGMENTS} segments. */
    TOO_MANY_SEGMENTS("would make the path longer than " + PathSegments.MAX_SEGMENTS
        + " segments");

    private final String description;

    Reason(String description) {
      this.description = description;
    }

    /** A short phrase that completes "segment 'x' ...". */
    public String description() {
      return description;
    }
  }

  private final transient String segment;
  private final int position;
  private final String pathSoFar;
  private final Reason reason;

  InvalidPathException(String segment, int position, String pathSoFar, Reason reason, String detail) {
    super(message(segment, position, pathSoFar, reason, detail));
    this.segment = segment;
    this.position = position;
    this.pathSoFar = pathSoFar;
    this.reason = reason;
  }

  private static String message(
      String segment, int position, String pathSoFar, Reason reason, String detail) {
    StringBuilder m = new StringBuilder("invalid field path segment ");
    if (position >= 0) {
      m.append("#").append(position).append(' ');
    }
    m.append(Quoting.quote(segment));
    if (!pathSoFar.isEmpty()) {
      String shown = pathSoFar.length() <= 128
          ? pathSoFar : "..." + pathSoFar.substring(pathSoFar.length() - 125);
      m.append(" after '").append(shown).append('\'');
    }
    m.append(": ").append(reason.description());
    if (!detail.isEmpty()) {
      m.append(" (").append(detail).append(')');
    }
    return m.toString();
  }

  /** The rejected segment exactly as given (may be {@code null}); print it with care. */
  public String segment() {
    return segment;
  }

  /** Zero-based position of the segment in the path, or -1 when it was checked on its own. */
  public int position() {
    return position;
  }

  /** The valid segments before the rejected one, dotted; empty for the first segment. */
  public String pathSoFar() {
    return pathSoFar;
  }

  public Reason reason() {
    return reason;
  }
}
