package io.writeguard.version;

/**
 * What is wrong with one document's version field, as found by {@link VersionAuditor}.
 *
 * <p>A healthy version is a BSON int64 (Java {@code long}) that is zero or more and below
 * {@code Long.MAX_VALUE - 1}, so the next update can raise it. The first five
 * kinds have exactly one safe meaning and {@link VersionAuditor#fix()} repairs them to an int64;
 * the rest need a person, because any automatic choice could move a version backwards or merge
 * two different histories.
 *
 * <p>int32 versions: an int32 is an integer and compares equal to the same int64, so optimistic
 * updates on it work; but {@code $inc} keeps it int32 until it overflows, and drivers map it to a
 * different type. It is reported as {@link #INT32} and converted to the same value as an int64.
 *
 * <p>Decimal128 is {@link #OTHER_TYPE} even when integral: nothing in WriteGuard writes it, so a
 * decimal version means someone else's code is writing the field, which a person should see.
 * Immutable and thread-safe (an enum).
 */
public enum VersionProblem {
  /** The field is absent. Repaired to 0. */
  MISSING(true, "missing"),
  /** The field is BSON null. Repaired to 0. */
  NULL(true, "null"),
  /** A non-negative int32. Repaired to the same value as an int64. */
  INT32(true, "int32 instead of int64"),
  /** A non-negative double with no fractional part, e.g. 3.0. Repaired to that int64. */
  INTEGRAL_DOUBLE(true, "integral double"),
  /** A string of ASCII digits within int64 range, e.g. "12". Repaired to that int64. */
  DIGIT_STRING(true, "string of digits"),
  /** A number below zero (int32, int64 or double). Needs a person. */
  NEGATIVE(false, "negative"),
  /** A double with a fractional part, e.g. 2.5. Needs a person. */
  FRACTIONAL(false, "fractional double"),
  /** NaN, +Infinity, or a double or digit string past the int64 range. Needs a person. */
  OUT_OF_RANGE(false, "NaN, infinite or past int64"),
  /** Any other string ("abc", "-1", " 7", "1e3"). Needs a person. */
  OTHER_STRING(false, "non-numeric string"),
  /** Any other BSON type: ObjectId, boolean, array, document, date, decimal128... Needs a person. */
  OTHER_TYPE(false, "other BSON type"),
  /**
   * An int64 (or a digit string) of {@code Long.MAX_VALUE - 1} or more: the next update would
   * overflow it (a locked update's claim and its write are two increments), so every update
   * refuses the document. Never written by a fix. Needs a person.
   */
  AT_MAXIMUM(false, "at the int64 maximum: the next update would overflow");

  /** The lowest version no update can raise safely: a claim and a write need two increments. */
  static final long FIRST_UNUSABLE = Long.MAX_VALUE - 1;

  private final boolean fixable;
  private final String description;

  VersionProblem(boolean fixable, String description) {
    this.fixable = fixable;
    this.description = description;
  }

  /** True when {@link VersionAuditor#fix()} repairs this kind; false when it needs a person. */
  public boolean fixable() {
    return fixable;
  }

  /** A short human description, e.g. "string of digits". */
  public String description() {
    return description;
  }
}
