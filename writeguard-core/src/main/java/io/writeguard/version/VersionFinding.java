package io.writeguard.version;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;

/**
 * One document whose version field is not a usable int64 (zero or more, below
 * {@code Long.MAX_VALUE - 1}): its {@code _id}, the exact value
 * read (absent for {@link VersionProblem#MISSING}), the kind of problem and, for fixable kinds,
 * the int64 it would be repaired to. Immutable and thread-safe.
 */
public final class VersionFinding {
  private final BsonValue id;
  private final BsonValue value;
  private final VersionProblem problem;
  private final Long repaired;

  private VersionFinding(BsonValue id, BsonValue value, VersionProblem problem, Long repaired) {
    this.id = id;
    this.value = value;
    this.problem = problem;
    this.repaired = repaired;
  }

  /**
   * Classifies a version value read from a document.
   *
   * @param id the document's {@code _id}
   * @param value the version field's value, or Java {@code null} when the field is absent
   * @return the finding, or empty when the value is a healthy int64: zero or more, and below
   *     {@code Long.MAX_VALUE - 1}, so the next update can raise it
   */
  public static Optional<VersionFinding> classify(BsonValue id, BsonValue value) {
    Objects.requireNonNull(id, "id must not be null");
    if (value == null) {
      return finding(id, null, VersionProblem.MISSING, 0L);
    }
    switch (value.getBsonType()) {
      case INT64: {
        long v = value.asInt64().getValue();
        if (v >= VersionProblem.FIRST_UNUSABLE) {
          return finding(id, value, VersionProblem.AT_MAXIMUM, null);
        }
        return v >= 0 ? Optional.empty() : finding(id, value, VersionProblem.NEGATIVE, null);
      }
      case NULL:
        return finding(id, value, VersionProblem.NULL, 0L);
      case INT32: {
        int v = value.asInt32().getValue();
        return v >= 0
            ? finding(id, value, VersionProblem.INT32, (long) v)
            : finding(id, value, VersionProblem.NEGATIVE, null);
      }
      case DOUBLE:
        return classifyDouble(id, value.asDouble());
      case STRING:
        return classifyString(id, value.asString());
      default:
        return finding(id, value, VersionProblem.OTHER_TYPE, null);
    }
  }

  private static Optional<VersionFinding> classifyDouble(BsonValue id, BsonDouble value) {
    double d = value.getValue();
    if (d < 0) {
      return finding(id, value, VersionProblem.NEGATIVE, null);
    }
    if (Double.isNaN(d) || Double.isInfinite(d) || d >= 0x1p63) {
      return finding(id, value, VersionProblem.OUT_OF_RANGE, null);
    }
    if (d != Math.rint(d)) {
      return finding(id, value, VersionProblem.FRACTIONAL, null);
    }
    return finding(id, value, VersionProblem.INTEGRAL_DOUBLE, (long) d); // -0.0 becomes 0
  }

  private static Optional<VersionFinding> classifyString(BsonValue id, BsonString value) {
    String s = value.getValue();
    if (s.isEmpty() || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return finding(id, value, VersionProblem.OTHER_STRING, null);
    }
    try {
      long v = Long.parseLong(s);
      // A fix must never write a version the next update cannot raise.
      return v >= VersionProblem.FIRST_UNUSABLE ? finding(id, value, VersionProblem.AT_MAXIMUM,
          null) : finding(id, value, VersionProblem.DIGIT_STRING, v);
    } catch (NumberFormatException tooBig) {
      return finding(id, value, VersionProblem.OUT_OF_RANGE, null);
    }
  }

  private static Optional<VersionFinding> finding(
      BsonValue id, BsonValue value, VersionProblem problem, Long repaired) {
    return Optional.of(new VersionFinding(id, value, problem, repaired));
  }

  /** The document's {@code _id}. */
  public BsonValue id() {
    return id;
  }

  /** The exact value read, with its BSON type; empty when the field was absent. */
  public Optional<BsonValue> value() {
    return Optional.ofNullable(value);
  }

  public VersionProblem problem() {
    return problem;
  }

  /** The {@code _id} in mongo shell notation, e.g. {@code ObjectId("...")}, shortened if long. */
  public String idText() {
    return BsonText.of(id);
  }

  /** The value read in mongo shell notation ({@code NumberLong(4)}, {@code 3.0}), or "(missing)". */
  public String valueText() {
    return value == null ? "(missing)" : BsonText.of(value);
  }

  /** The int64 a fix writes; empty when the problem needs a person. */
  public OptionalLong repairedVersion() {
    return repaired == null ? OptionalLong.empty() : OptionalLong.of(repaired);
  }

  /**
   * The condition a fix puts on the version field: the exact value read and its BSON type, so a
   * document changed since the read (even to an equal number of another type: {@code 5.0},
   * {@code 5} and {@code NumberLong(5)} are equal in a plain filter) no longer matches.
   */
  BsonDocument unchangedCondition() {
    switch (problem) {
      case MISSING:
        return new BsonDocument("$exists", org.bson.BsonBoolean.FALSE);
      case NULL:
        return new BsonDocument("$type", new BsonString("null"));
      default:
        return new BsonDocument("$type", new BsonString(typeAlias(value.getBsonType())))
            .append("$eq", value);
    }
  }

  private static String typeAlias(BsonType type) {
    switch (type) {
      case INT32:
        return "int";
      case DOUBLE:
        return "double";
      case STRING:
        return "string";
      default:
        throw new IllegalStateException("no repair for a version of type " + type);
    }
  }

  BsonInt64 repairedValue() {
    if (repaired == null) {
      throw new IllegalStateException(problem + " is not fixable");
    }
    return new BsonInt64(repaired);
  }

  @Override
  public String toString() {
    return "VersionFinding{_id=" + idText() + ", " + problem + ", value=" + valueText() + "}";
  }
}
