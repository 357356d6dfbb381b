package io.writeguard.version;

import static org.assertj.core.api.Assertions.assertThat;

import io.writeguard.testing.Gen;
import io.writeguard.testing.Generated;
import io.writeguard.testing.PropertyTest;
import java.math.BigInteger;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.MethodSource;

class VersionFindingTest {
  private static final BsonValue ID = new BsonInt32(1);

  @Test
  void classifiesEveryKindAndItsRepair() {
    assertKind(null, VersionProblem.MISSING, 0L);
    assertKind(BsonNull.VALUE, VersionProblem.NULL, 0L);
    assertKind(new BsonInt32(7), VersionProblem.INT32, 7L);
    assertKind(new BsonInt32(0), VersionProblem.INT32, 0L);
    assertKind(new BsonDouble(3.0), VersionProblem.INTEGRAL_DOUBLE, 3L);
    assertKind(new BsonDouble(-0.0), VersionProblem.INTEGRAL_DOUBLE, 0L);
    assertKind(new BsonDouble(0x1p62), VersionProblem.INTEGRAL_DOUBLE, 1L << 62);
    assertKind(new BsonString("12"), VersionProblem.DIGIT_STRING, 12L);
    assertKind(new BsonString("007"), VersionProblem.DIGIT_STRING, 7L);
    assertKind(new BsonString("9223372036854775805"), VersionProblem.DIGIT_STRING,
        Long.MAX_VALUE - 2);
    // A fix must not write a version the next update cannot raise (issue 35).
    assertKind(new BsonString("9223372036854775807"), VersionProblem.AT_MAXIMUM, null);
    assertKind(new BsonString("9223372036854775806"), VersionProblem.AT_MAXIMUM, null);
    assertKind(new BsonInt64(Long.MAX_VALUE), VersionProblem.AT_MAXIMUM, null);
    assertKind(new BsonInt64(Long.MAX_VALUE - 1), VersionProblem.AT_MAXIMUM, null);

    assertKind(new BsonInt64(-1), VersionProblem.NEGATIVE, null);
    assertKind(new BsonInt32(-1), VersionProblem.NEGATIVE, null);
    assertKind(new BsonDouble(-2.5), VersionProblem.NEGATIVE, null);
    assertKind(new BsonDouble(Double.NEGATIVE_INFINITY), VersionProblem.NEGATIVE, null);
    assertKind(new BsonDouble(2.5), VersionProblem.FRACTIONAL, null);
    assertKind(new BsonDouble(Double.NaN), VersionProblem.OUT_OF_RANGE, null);
    assertKind(new BsonDouble(Double.POSITIVE_INFINITY), VersionProblem.OUT_OF_RANGE, null);
    assertKind(new BsonDouble(0x1p63), VersionProblem.OUT_OF_RANGE, null);
    assertKind(new BsonString("9223372036854775808"), VersionProblem.OUT_OF_RANGE, null);
    for (String s : List.of("abc", "", "-1", "+1", " 7", "7 ", "1e3", "3.0", "\u0661")) {
      assertKind(new BsonString(s), VersionProblem.OTHER_STRING, null);
    }
    assertKind(new BsonObjectId(), VersionProblem.OTHER_TYPE, null);
    assertKind(BsonBoolean.TRUE, VersionProblem.OTHER_TYPE, null);
    assertKind(new BsonArray(List.of(new BsonInt64(1))), VersionProblem.OTHER_TYPE, null);
    assertKind(new BsonDocument("v", new BsonInt64(1)), VersionProblem.OTHER_TYPE, null);
    assertKind(new BsonDateTime(new Date().getTime()), VersionProblem.OTHER_TYPE, null);
    assertKind(new BsonDecimal128(Decimal128.parse("5")), VersionProblem.OTHER_TYPE, null);
  }

  @Test
  void healthyVersionsAreNotFindings() {
    assertThat(VersionFinding.classify(ID, new BsonInt64(0))).isEmpty();
    assertThat(VersionFinding.classify(ID, new BsonInt64(Long.MAX_VALUE - 2))).isEmpty();
  }

  @Test
  void conditionPinsTheTypeAsWellAsTheValue() {
    assertThat(finding(new BsonDouble(3.0)).unchangedCondition())
        .isEqualTo(BsonDocument.parse("{$type: 'double', $eq: 3.0}"));
    assertThat(finding(new BsonInt32(7)).unchangedCondition())
        .isEqualTo(BsonDocument.parse("{$type: 'int', $eq: 7}"));
    assertThat(finding(new BsonString("12")).unchangedCondition())
        .isEqualTo(BsonDocument.parse("{$type: 'string', $eq: '12'}"));
    assertThat(finding(BsonNull.VALUE).unchangedCondition())
        .isEqualTo(BsonDocument.parse("{$type: 'null'}"));
    assertThat(finding(null).unchangedCondition())
        .isEqualTo(BsonDocument.parse("{$exists: false}"));
  }

  @Test
  void rendersIdsAndValuesInShellNotation() {
    VersionFinding f = VersionFinding.classify(new BsonString("a"), new BsonInt64(-4)).orElseThrow();
    assertThat(f.idText()).isEqualTo("\"a\"");
    assertThat(f.valueText()).isEqualTo("NumberLong(-4)");
    assertThat(finding(null).valueText()).isEqualTo("(missing)");
    assertThat(VersionFinding.classify(new BsonString("x".repeat(100)), null).orElseThrow().idText())
        .hasSize(60).endsWith("...");
  }

  @PropertyTest
  @MethodSource("anyLong")
  void everyNonNegativeLongIsHealthyAndEveryNegativeOneIsNot(long v) {
    Optional<VersionFinding> f = VersionFinding.classify(ID, new BsonInt64(v));
    if (v >= Long.MAX_VALUE - 1) {
      // the next update could not raise it (issue 35)
      assertThat(f.orElseThrow().problem()).isEqualTo(VersionProblem.AT_MAXIMUM);
    } else if (v >= 0) {
      assertThat(f).isEmpty();
    } else {
      assertThat(f.orElseThrow().problem()).isEqualTo(VersionProblem.NEGATIVE);
    }
  }

  @PropertyTest
  @MethodSource("nonNegativeLong")
  void digitStringsAndIntegralDoublesRepairToTheirOwnValue(long v) {
    if (v >= Long.MAX_VALUE - 1) {
      assertThat(finding(new BsonString(Long.toString(v))).repairedVersion()).isEmpty();
    } else {
      assertThat(finding(new BsonString(Long.toString(v))).repairedVersion()).hasValue(v);
    }
    double d = (double) v;
    if (d < 0x1p63) {
      assertThat(finding(new BsonDouble(d)).repairedVersion()).hasValue((long) d);
    }
  }

  /**
   * Any ASCII digits, leading zeros and all: repaired to their value if the next update can
   * raise it (below {@code Long.MAX_VALUE - 1}).
   */
  @PropertyTest
  @MethodSource("digitStrings")
  void everyDigitStringIsRepairableExactlyWhenItFitsALong(String digits) {
    VersionFinding f = finding(new BsonString(digits));
    BigInteger value = new BigInteger(digits);
    if (value.compareTo(BigInteger.valueOf(Long.MAX_VALUE - 1)) < 0) {
      assertThat(f.problem()).isEqualTo(VersionProblem.DIGIT_STRING);
      assertThat(f.repairedVersion()).hasValue(value.longValueExact());
    } else if (value.bitLength() < 64) {
      assertThat(f.problem()).isEqualTo(VersionProblem.AT_MAXIMUM);
      assertThat(f.repairedVersion()).isEmpty();
    } else {
      assertThat(f.problem()).isEqualTo(VersionProblem.OUT_OF_RANGE);
      assertThat(f.repairedVersion()).isEmpty();
    }
  }

  static Stream<Named<Long>> anyLong() {
    return Generated.cases(Gen.longs(Long.MIN_VALUE, Long.MAX_VALUE));
  }

  static Stream<Named<Long>> nonNegativeLong() {
    return Generated.cases(Gen.longs(0, Long.MAX_VALUE));
  }

  static Stream<Named<String>> digitStrings() {
    return Generated.cases(Gen.digitStrings(1, 25)
        .withEdges("9223372036854775807", "9223372036854775808", "09223372036854775807",
            "9223372036854775806", "9223372036854775805",
            "18446744073709551616", "0000000000000000000000000"));
  }

  private static VersionFinding finding(BsonValue value) {
    return VersionFinding.classify(ID, value).orElseThrow();
  }

  private static void assertKind(BsonValue value, VersionProblem kind, Long repaired) {
    VersionFinding f = finding(value);
    assertThat(f.problem()).as("%s", value).isEqualTo(kind);
    assertThat(f.problem().fixable()).isEqualTo(repaired != null);
    if (repaired == null) {
      assertThat(f.repairedVersion()).isEmpty();
    } else {
      assertThat(f.repairedVersion()).hasValue(repaired);
    }
    assertThat(f.value()).isEqualTo(Optional.ofNullable(value));
  }
}
