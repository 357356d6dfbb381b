package io.writeguard.internal;

import java.time.Duration;
import java.util.Objects;

/** Builder-time validation that names the bad parameter and its value. Not API. */
public final class Checks {
  private Checks() {}

  public static int atLeast(String name, int value, int min) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be >= " + min + ", was " + value);
    }
    return value;
  }

  public static long atLeast(String name, long value, long min) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be >= " + min + ", was " + value);
    }
    return value;
  }

  public static double between(String name, double value, double min, double max) {
    if (!(value >= min && value <= max)) {
      throw new IllegalArgumentException(
          name + " must be between " + min + " and " + max + ", was " + value);
    }
    return value;
  }

  public static Duration positive(String name, Duration value) {
    requireNonNull(name, value);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
    return value;
  }

  /** As {@link Objects#requireNonNull}, building its message only when it throws (hot paths). */
  private static void requireNonNull(String name, Object value) {
    if (value == null) {
      throw new NullPointerException(name + " must not be null");
    }
  }

  public static Duration notNegative(String name, Duration value) {
    requireNonNull(name, value);
    if (value.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative, was " + value);
    }
    return value;
  }

  /** The upper end of a range: {@code value} must not be below {@code lower}, named {@code lowerName}. */
  public static Duration notBelow(String name, Duration value, String lowerName, Duration lower) {
    if (value.compareTo(lower) < 0) {
      throw new IllegalArgumentException(
          name + " must be >= " + lowerName + " (" + lower + "), was " + value);
    }
    return value;
  }

  public static String notBlank(String name, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank, was " + quote(value));
    }
    return value;
  }

  /** Quotes a value for an error message, so empty and blank values are visible. */
  public static String quote(Object value) {
    return value == null ? "null" : "'" + value + "'";
  }
}
