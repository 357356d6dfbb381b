package io.writeguard.path;

/** Renders an untrusted segment for an error message: quoted, escaped, shortened. */
final class Quoting {
  /** Longer segments are cut to this many chars in messages, with their full length noted. */
  static final int SHOWN_CHARS = 64;

  private Quoting() {}

  static String quote(String value) {
    if (value == null) {
      return "null";
    }
    int shown = Math.min(value.length(), SHOWN_CHARS);
    if (shown < value.length() && Character.isHighSurrogate(value.charAt(shown - 1))) {
      shown--; // never cut a surrogate pair in half
    }
    StringBuilder out = new StringBuilder(shown + 16).append('\'');
    for (int i = 0; i < shown; i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c) || Character.isSurrogate(c) && !pairedAt(value, i)) {
        out.append(String.format("\\u%04X", (int) c));
      } else if (c == '\'' || c == '\\') {
        out.append('\\').append(c);
      } else {
        out.append(c);
      }
    }
    out.append('\'');
    if (shown < value.length()) {
      out.append("... (").append(value.length()).append(" chars)");
    }
    return out.toString();
  }

  /** True when the surrogate at {@code i} is half of a well-formed pair. */
  static boolean pairedAt(String s, int i) {
    char c = s.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
    }
    return Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
  }
}
