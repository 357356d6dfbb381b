package io.writeguard.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.writeguard.path.InvalidPathException.Reason;
import io.writeguard.testing.Gen;
import io.writeguard.testing.Generated;
import io.writeguard.testing.PropertyTest;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Properties of the segment rules, checked against an independent model of them. */
class PathSegmentsPropertiesTest {

  // ---- field segments ----

  @PropertyTest
  @MethodSource("printablePairs")
  void aSegmentContainingADotIsRejectedAndNamed(String before, String after) {
    String segment = "k" + before + "." + after;
    InvalidPathException e = rejectField(segment);
    assertThat(e.reason()).isIn(Reason.CONTAINS_DOT, Reason.TOO_LONG);
    assertThat(e.segment()).isEqualTo(segment);
    if (segment.length() <= Quoting.SHOWN_CHARS) {
      assertThat(e.getMessage()).contains("'" + segment.replace("\\", "\\\\").replace("'", "\\'") + "'");
    }
  }

  @PropertyTest
  @MethodSource("printablePairs")
  void aSegmentContainingNulIsRejectedAndTheNulIsShownEscaped(String before, String after) {
    String segment = "k" + before + "\0" + after;
    InvalidPathException e = rejectField(segment);
    assertThat(e.segment()).isEqualTo(segment);
    if (e.reason() == Reason.CONTAINS_NUL) {
      assertThat(e.getMessage()).contains("\\u0000").doesNotContain("\0");
    } else {
      // an earlier rule fired first: a dot before the NUL, or the whole thing is too long
      assertThat(e.reason()).isIn(Reason.CONTAINS_DOT, Reason.TOO_LONG);
    }
    assertThat(e.getMessage()).doesNotContain("\0");
  }

  @PropertyTest
  @MethodSource("printables")
  void aSegmentStartingWithDollarIsRejected(String rest) {
    String segment = "$" + rest;
    InvalidPathException e = rejectField(segment);
    assertThat(e.reason()).isIn(Reason.DOLLAR_PREFIX, Reason.TOO_LONG);
    assertThat(e.segment()).isEqualTo(segment);
  }

  @PropertyTest
  @MethodSource("blanks")
  void blankSegmentsAreRejected(String blank) {
    assertThat(rejectField(blank).reason()).isEqualTo(Reason.BLANK);
  }

  /** The validator agrees with a plainly written model of the rules on arbitrary strings. */
  @PropertyTest
  @MethodSource("anyText")
  void fieldRulesMatchTheModel(String segment) {
    Reason expected = modelFieldReason(segment);
    if (expected == null) {
      assertThat(PathSegments.checkField(segment)).isEqualTo(segment);
    } else {
      assertThat(rejectField(segment).reason()).isEqualTo(expected);
    }
  }

  @PropertyTest
  @MethodSource("validFieldLists")
  void validSegmentsJoinIntoADottedPathWhoseSplitIsTheSegments(List<String> names) {
    FieldPath path = FieldPath.of(names.get(0));
    for (String name : names.subList(1, names.size())) {
      path = path.field(name);
    }
    assertThat(path.segments()).isEqualTo(names);
    assertThat(Arrays.asList(path.toString().split("\\.", -1))).isEqualTo(names);
    assertThat(FieldPath.parse(path.toString())).isEqualTo(path);
  }

  // ---- index segments ----

  @PropertyTest
  @MethodSource("nonNegativeInts")
  void everyCanonicalIndexRoundTrips(int index) {
    String text = Integer.toString(index);
    assertThat(PathSegments.checkIndex(text)).isEqualTo(index);
    FieldPath viaText = FieldPath.of("a").index(text);
    assertThat(viaText).isEqualTo(FieldPath.of("a").index(index));
    assertThat(viaText.toString()).isEqualTo("a." + text);
    assertThat(viaText.lastSegment()).isEqualTo(text);
  }

  @PropertyTest
  @MethodSource("nonNegativeInts")
  void leadingZerosSignsSpacesAndExponentsAreRejected(int index) {
    String n = Integer.toString(index);
    for (String bad : List.of("0" + n, "+" + n, " " + n, n + " ", n + "e3", n + ".0", "0x" + n,
        n + "\n", "00")) {
      assertThat(rejectIndex(bad).reason()).as(bad).isEqualTo(Reason.NOT_AN_INDEX);
    }
  }

  @PropertyTest
  @MethodSource("negativeInts")
  void negativeIndexesAreRejected(int index) {
    assertThat(rejectIndex(Integer.toString(index)).reason()).isEqualTo(Reason.NEGATIVE_INDEX);
    InvalidPathException e = catchThrowableOfType(InvalidPathException.class,
        () -> FieldPath.of("a").index(index));
    assertThat(e.reason()).isEqualTo(Reason.NEGATIVE_INDEX);
    assertThat(e.getMessage()).contains("'" + index + "'");
  }

  @PropertyTest
  @MethodSource("longsPastTheIntRange")
  void indexesPastTheIntRangeAreRejected(long index) {
    assertThat(rejectIndex(Long.toString(index)).reason()).isEqualTo(Reason.INDEX_TOO_LARGE);
    assertThat(rejectIndex(Long.toString(index) + "0000000000").reason())
        .isEqualTo(Reason.INDEX_TOO_LARGE);
  }

  /** Accepted exactly when the text matches the model: canonical digits within int range. */
  @PropertyTest
  @MethodSource("indexLike")
  void indexRulesMatchTheModel(String text) {
    boolean canonical = text.matches("0|[1-9][0-9]*")
        && new BigInteger(text).compareTo(BigInteger.valueOf(Integer.MAX_VALUE)) <= 0;
    if (canonical) {
      assertThat(PathSegments.checkIndex(text)).isEqualTo(Integer.parseInt(text));
    } else {
      InvalidPathException e = rejectIndex(text);
      assertThat(e.segment()).isEqualTo(text);
      assertThat(e.getMessage()).startsWith("invalid field path segment");
    }
  }

  // ---- model and generators ----

  /** The rules, written out independently of the implementation's order of checks. */
  static Reason modelFieldReason(String s) {
    if (s.isEmpty()) {
      return Reason.EMPTY;
    }
    if (s.length() > PathSegments.MAX_LENGTH) {
      return Reason.TOO_LONG;
    }
    if (s.startsWith("$")) {
      return Reason.DOLLAR_PREFIX;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '.') {
        return Reason.CONTAINS_DOT;
      }
      if (c == 0) {
        return Reason.CONTAINS_NUL;
      }
      if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
        return Reason.CONTROL_CHARACTER;
      }
      boolean high = c >= 0xD800 && c <= 0xDBFF;
      boolean low = c >= 0xDC00 && c <= 0xDFFF;
      boolean nextLow = i + 1 < s.length() && s.charAt(i + 1) >= 0xDC00 && s.charAt(i + 1) <= 0xDFFF;
      boolean prevHigh = i > 0 && s.charAt(i - 1) >= 0xD800 && s.charAt(i - 1) <= 0xDBFF;
      if (high && !nextLow || low && !prevHigh) {
        return Reason.UNPAIRED_SURROGATE;
      }
    }
    if (s.chars().allMatch(Character::isWhitespace)) {
      return Reason.BLANK;
    }
    return null;
  }

  static final Gen<String> PRINTABLE = Gen.strings(Gen.charRange(' ', '~'), 0, 20);

  static Stream<Arguments> printablePairs() {
    return Generated.tuples(PRINTABLE, PRINTABLE);
  }

  static Stream<Named<String>> printables() {
    return Generated.cases(PRINTABLE);
  }

  static Stream<Named<String>> blanks() {
    return Generated.cases(Gen.strings(Gen.chars(" \u2003\u3000\u2028"), 1, 10));
  }

  /** Mostly short strings of tricky chars, some of any chars, a few around the length limit. */
  static Stream<Named<String>> anyText() {
    Gen<String> tricky = Gen.strings(Gen.chars("aZ9$.\0\n\t \u0085\u007F\uFF0E\uFF04"
        + "\uD83D\uDE00\u00A0\u2003"), 0, 12);
    Gen<String> anything = Gen.strings(Gen.charRange('\u0000', '\uFFFF'), 0, 12);
    int max = PathSegments.MAX_LENGTH;
    Gen<String> longText = Gen.strings(Gen.charRange('a', 'c'), max - 2, max + 2)
        .withEdges("a".repeat(max), "a".repeat(max + 1), "$".repeat(max + 1), ".".repeat(max + 1),
            "\uD83D\uDE00".repeat(max / 2), "a" + "\uD83D\uDE00".repeat(max / 2));
    return Generated.cases(3000,
        Gen.frequency(Map.entry(6, tricky), Map.entry(3, anything), Map.entry(1, longText)));
  }

  /** Lists of 1 to MAX_SEGMENTS field names that every rule accepts. */
  static Stream<Named<List<String>>> validFieldLists() {
    Gen<String> plain = Gen.strings(
        Gen.chars("abcXYZ0129 $-_'\\\u00A0\uFF0E\uFF04\u00E9\u4E2D"), 1, 20);
    Gen<String> emoji = Gen.elements("\uD83D\uDE00", "a\uD83D\uDE00b", "\uD835\uDC00");
    Gen<String> validField = Gen.oneOf(plain, emoji).filter(s -> modelFieldReason(s) == null);
    return Generated.cases(Gen.listOf(validField, 1, PathSegments.MAX_SEGMENTS));
  }

  static Stream<Named<Integer>> nonNegativeInts() {
    return Generated.cases(Gen.ints(0, Integer.MAX_VALUE));
  }

  static Stream<Named<Integer>> negativeInts() {
    return Generated.cases(Gen.ints(Integer.MIN_VALUE, -1));
  }

  static Stream<Named<Long>> longsPastTheIntRange() {
    return Generated.cases(Gen.longs(Integer.MAX_VALUE + 1L, Long.MAX_VALUE));
  }

  /** Digit-ish text and every kind of long, plus the spellings around the int limits. */
  static Stream<Named<String>> indexLike() {
    Gen<String> digits = Gen.strings(Gen.chars("0123456789+-e .x\u0661"), 1, 12);
    Gen<String> numbers = Gen.longs(Long.MIN_VALUE, Long.MAX_VALUE).map(n -> Long.toString(n));
    return Generated.cases(3000, Gen.oneOf(digits, numbers)
        .withEdges("0", "00", "01", "-0", "2147483647", "2147483648", "02147483647",
            "-2147483648", "4294967296", "99999999999", "\u0661"));
  }

  private static InvalidPathException rejectField(String segment) {
    InvalidPathException e =
        catchThrowableOfType(InvalidPathException.class, () -> PathSegments.checkField(segment));
    assertThat(e).as("segment %s should be rejected", Quoting.quote(segment)).isNotNull();
    assertThat(e.position()).isEqualTo(-1);
    return e;
  }

  private static InvalidPathException rejectIndex(String text) {
    InvalidPathException e =
        catchThrowableOfType(InvalidPathException.class, () -> PathSegments.checkIndex(text));
    assertThat(e).as("index %s should be rejected", text).isNotNull();
    assertThatThrownBy(() -> FieldPath.of("a").index(text)).isInstanceOf(InvalidPathException.class);
    return e;
  }
}
