package io.writeguard.app.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads durations written like {@code 500ms}, {@code 10s}, {@code 2m}, for the options of every
 * command ({@code lab}, {@code serve}, {@code token}, {@code --mongo-timeout}). Stateless.
 */
public final class Durations {
  private static final Pattern FORMAT = Pattern.compile("(\\d{1,9})(ms|s|m)");

  private Durations() {}

  /**
   * Parses {@code text} for option {@code option}.
   *
   * @param allowZero whether {@code 0s} means "none" (warm-up) rather than an error
   * @throws UsageException naming the option and the value
   */
  public static Duration parse(String option, String text, boolean allowZero) {
    Matcher m = FORMAT.matcher(text == null ? "" : text.trim());
    if (!m.matches()) {
      throw new UsageException(option + ": cannot read '" + text
          + "' as a duration (write it like 500ms, 10s or 2m)");
    }
    long amount = Long.parseLong(m.group(1));
    Duration d = switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(amount);
      case "s" -> Duration.ofSeconds(amount);
      default -> Duration.ofMinutes(amount);
    };
    if (d.isZero() && !allowZero) {
      throw new UsageException(option + " must be positive, was '" + text + "'");
    }
    return d;
  }

  /** {@code 10s}, {@code 500ms}, {@code 2m}, {@code 1.5s}: short, for headers. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + "ms";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    return ms % 1000 == 0 ? ms / 1000 + "s" : String.format(java.util.Locale.ROOT, "%.1fs", ms / 1000.0);
  }
}
