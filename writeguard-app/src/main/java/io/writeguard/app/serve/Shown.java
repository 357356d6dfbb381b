package io.writeguard.app.serve;

/** Request text made safe to echo in an error: at most 64 chars, control chars as '?'. */
final class Shown {
  private static final int MAX = 64;

  private Shown() {}

  static String value(String s) {
    if (s == null) {
      return "null";
    }
    String shown = s.length() > MAX ? s.substring(0, MAX) + "...(" + s.length() + " chars)" : s;
    return shown.replaceAll("\\p{Cntrl}", "?");
  }
}
