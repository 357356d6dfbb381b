package io.writeguard.path;

import io.writeguard.path.InvalidPathException.Reason;

/**
 * The rules for one segment of a MongoDB field path, for segments that come from request data.
 *
 * <p>A <b>field</b> segment is rejected when it is null, empty, only whitespace, longer than
 * {@link #MAX_LENGTH} chars, starts with {@code $}, or contains {@code .}, NUL, another control
 * character (U+0000..U+001F, U+007F..U+009F) or an unpaired UTF-16 surrogate. Everything else is
 * data, including inner and surrounding spaces, {@code $} after the first char, and Unicode
 * look-alikes such as the full-width dot U+FF0E or dollar U+FF04: MongoDB treats those as
 * ordinary characters, so they cannot change which field an update reaches.
 *
 * <p>An <b>index</b> segment is a canonical non-negative decimal within int range: {@code 0} or
 * a non-zero ASCII digit followed by ASCII digits, at most {@link #MAX_INDEX}. {@code 01},
 * {@code +1}, {@code -1}, {@code 1e3}, {@code " 1"}, Arabic-Indic digits and {@code 2147483648}
 * are rejected, so every accepted index has exactly one spelling.
 *
 * <p>Stateless and thread-safe.
 */
public final class PathSegments {
  /** Longest field segment, in UTF-16 chars. Real keys are short; this bounds what we echo. */
  public static final int MAX_LENGTH = 256;
  /** Most segments in one path (MongoDB itself nests documents at most 100 deep). */
  public static final int MAX_SEGMENTS = 32;
  /** Largest array index accepted. */
  public static final int MAX_INDEX = Integer.MAX_VALUE;

  private PathSegments() {}

  /**
   * Checks one field name on its own.
   *
   * @return {@code segment}, unchanged
   * @throws InvalidPathException naming the segment and the rule it breaks
   */
  public static String checkField(String segment) {
    checkField(segment, -1, "");
    return segment;
  }

  /**
   * Parses one array index written as text (e.g. a request parameter).
   *
   * @throws InvalidPathException unless the text is a canonical non-negative int
   */
  public static int checkIndex(String segment) {
    return checkIndex(segment, -1, "");
  }

  /**
   * Checks one array index.
   *
   * @return {@code index}, unchanged
   * @throws InvalidPathException when it is negative
   */
  public static int checkIndex(int index) {
    return checkIndex(index, -1, "");
  }

  static void checkField(String s, int position, String pathSoFar) {
    if (s == null) {
      throw fail(null, position, pathSoFar, Reason.NULL, "");
    }
    if (s.isEmpty()) {
      throw fail(s, position, pathSoFar, Reason.EMPTY, "");
    }
    if (s.length() > MAX_LENGTH) {
      throw fail(s, position, pathSoFar, Reason.TOO_LONG, s.length() + " chars");
    }
    if (s.charAt(0) == '$') {
      throw fail(s, position, pathSoFar, Reason.DOLLAR_PREFIX, "");
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '.') {
        throw fail(s, position, pathSoFar, Reason.CONTAINS_DOT, "at char " + i);
      } else if (c == '\0') {
        throw fail(s, position, pathSoFar, Reason.CONTAINS_NUL, "at char " + i);
      } else if (Character.isISOControl(c)) {
        throw fail(s, position, pathSoFar, Reason.CONTROL_CHARACTER, codePoint(c) + " at char " + i);
      } else if (Character.isSurrogate(c) && !Quoting.pairedAt(s, i)) {
        throw fail(s, position, pathSoFar, Reason.UNPAIRED_SURROGATE, codePoint(c) + " at char " + i);
      }
    }
    if (s.isBlank()) {
      throw fail(s, position, pathSoFar, Reason.BLANK, "");
    }
  }

  static int checkIndex(String s, int position, String pathSoFar) {
    if (s == null) {
      throw fail(null, position, pathSoFar, Reason.NULL, "");
    }
    if (s.isEmpty()) {
      throw fail(s, position, pathSoFar, Reason.EMPTY, "");
    }
    boolean negative = s.charAt(0) == '-' && isCanonicalDigits(s, 1) && !s.equals("-0");
    if (negative) {
      throw fail(s, position, pathSoFar, Reason.NEGATIVE_INDEX, "");
    }
    if (!isCanonicalDigits(s, 0)) {
      throw fail(s, position, pathSoFar, Reason.NOT_AN_INDEX, "");
    }
    // At most 10 digits fit an int; parse as long so 2147483648..9999999999 are caught here.
    if (s.length() > 10 || Long.parseLong(s) > MAX_INDEX) {
      throw fail(s, position, pathSoFar, Reason.INDEX_TOO_LARGE, "");
    }
    return Integer.parseInt(s);
  }

  static int checkIndex(int index, int position, String pathSoFar) {
    if (index < 0) {
      throw fail(Integer.toString(index), position, pathSoFar, Reason.NEGATIVE_INDEX, "");
    }
    return index;
  }

  /** ASCII digits only from {@code from}, no leading zero unless the number is 0 itself. */
  private static boolean isCanonicalDigits(String s, int from) {
    if (from >= s.length()) {
      return false;
    }
    for (int i = from; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return s.charAt(from) != '0' || s.length() == from + 1;
  }

  private static String codePoint(char c) {
    return String.format("U+%04X", (int) c);
  }

  static InvalidPathException fail(
      String segment, int position, String pathSoFar, Reason reason, String detail) {
    return new InvalidPathException(segment, position, pathSoFar, reason, detail);
  }
}
