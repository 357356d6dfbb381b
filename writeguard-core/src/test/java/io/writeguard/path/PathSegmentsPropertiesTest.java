package io.writeguard.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.writeguard.path.InvalidPathException.Reason;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Tuple;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/** Properties of the segment rules, checked against an independent model of them. */
class PathSegmentsPropertiesTest {

  // ---- field segments ----

  @Property
  void aSegmentContainingADotIsRejectedAndNamed(
      @ForAll("printable") String before, @ForAll("printable") String after) {
    String segment = "k" + before + "." + after;
    InvalidPathException e = rejectField(segment);
    assertThat(e.reason()).isIn(Reason.CONTAINS_DOT, Reason.TOO_LONG);
    assertThat(e.segment()).isEqualTo(segment);
    if (segment.length() <= Quoting.SHOWN_CHARS) {
      assertThat(e.getMessage()).contains("'" + segment.replace("\\", "\\\\").replace("'", "\\'") + "'");
    }
  }

  @Property
  void aSegmentContainingNulIsRejectedAndTheNulIsShownEscaped(
      @ForAll("printable") String before, @ForAll("printable") String after) {
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

  @Property
  void aSegmentStartingWithDollarIsRejected(@ForAll("printable") String rest) {
    String segment = "$" + rest;
    InvalidPathException e = rejectField(segment);
    assertThat(e.reason()).isIn(Reason.DOLLAR_PREFIX, Reason.TOO_LONG);
    assertThat(e.segment()).isEqualTo(segment);
  }

  @Property
  void blankSegmentsAreRejected(@ForAll("blanks") String blank) {
    assertThat(rejectField(blank).reason()).isEqualTo(Reason.BLANK);
  }

  /** The validator agrees with a plainly written model of the rules on arbitrary strings. */
  @Property(tries = 3000)
  void fieldRulesMatchTheModel(@ForAll("anyText") String segment) {
    Reason expected = modelFieldReason(segment);
    if (expected == null) {
      assertThat(PathSegments.checkField(segment)).isEqualTo(segment);
    } else {
      assertThat(rejectField(segment).reason()).isEqualTo(expected);
    }
  }

  @Property
  void validSegmentsJoinIntoADottedPathWhoseSplitIsTheSegments(
      @ForAll @Size(min = 1, max = PathSegments.MAX_SEGMENTS) List<@From("validField") String> names) {
    FieldPath path = FieldPath.of(names.get(0));
    for (String name : names.subList(1, names.size())) {
      path = path.field(name);
    }
    assertThat(path.segments()).isEqualTo(names);
    assertThat(Arrays.asList(path.toString().split("\\.", -1))).isEqualTo(names);
    assertThat(FieldPath.parse(path.toString())).isEqualTo(path);
  }

  // ---- index segments ----

  @Property
  void everyCanonicalIndexRoundTrips(@ForAll @IntRange(min = 0) int index) {
    String text = Integer.toString(index);
    assertThat(PathSegments.checkIndex(text)).isEqualTo(index);
    FieldPath viaText = FieldPath.of("a").index(text);
    assertThat(viaText).isEqualTo(FieldPath.of("a").index(index));
    assertThat(viaText.toString()).isEqualTo("a." + text);
    assertThat(viaText.lastSegment()).isEqualTo(text);
  }

  @Property
  void leadingZerosSignsSpacesAndExponentsAreRejected(@ForAll @IntRange(min = 0) int index) {
    String n = Integer.toString(index);
    for (String bad : List.of("0" + n, "+" + n, " " + n, n + " ", n + "e3", n + ".0", "0x" + n,
        n + "\n", "00")) {
      assertThat(rejectIndex(bad).reason()).as(bad).isEqualTo(Reason.NOT_AN_INDEX);
    }
  }

  @Property
  void negativeIndexesAreRejected(@ForAll @IntRange(min = Integer.MIN_VALUE, max = -1) int index) {
    assertThat(rejectIndex(Integer.toString(index)).reason()).isEqualTo(Reason.NEGATIVE_INDEX);
    InvalidPathException e = catchThrowableOfType(InvalidPathException.class,
        () -> FieldPath.of("a").index(index));
    assertThat(e.reason()).isEqualTo(Reason.NEGATIVE_INDEX);
    assertThat(e.getMessage()).contains("'" + index + "'");
  }

  @Property
  void indexesPastTheIntRangeAreRejected(
      @ForAll @LongRange(min = Integer.MAX_VALUE + 1L) long index) {
    assertThat(rejectIndex(Long.toString(index)).reason()).isEqualTo(Reason.INDEX_TOO_LARGE);
    assertThat(rejectIndex(Long.toString(index) + "0000000000").reason())
        .isEqualTo(Reason.INDEX_TOO_LARGE);
  }

  /** Accepted exactly when the text matches the model: canonical digits within int range. */
  @Property(tries = 3000)
  void indexRulesMatchTheModel(@ForAll("indexLike") String text) {
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

  @Provide
  Arbitrary<String> printable() {
    return Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(20);
  }

  @Provide
  Arbitrary<String> blanks() {
    return Arbitraries.strings().withChars(' ', '\u2003', '\u3000', '\u2028').ofMinLength(1).ofMaxLength(10);
  }

  @Provide
  Arbitrary<String> anyText() {
    Arbitrary<String> tricky = Arbitraries.strings()
        .withChars('a', 'Z', '9', '$', '.', '\0', '\n', '\t', ' ', '\u0085', '\u007F', '\uFF0E',
            '\uFF04', '\uD83D', '\uDE00', '\u00A0', '\u2003')
        .ofMaxLength(12);
    Arbitrary<String> anything = Arbitraries.strings().all().ofMaxLength(12);
    Arbitrary<String> long_ = Arbitraries.strings().withCharRange('a', 'c')
        .ofMinLength(PathSegments.MAX_LENGTH - 2).ofMaxLength(PathSegments.MAX_LENGTH + 2);
    return Arbitraries.frequencyOf(
        Tuple.of(6, tricky), Tuple.of(3, anything),
        Tuple.of(1, long_));
  }

  @Provide
  Arbitrary<String> validField() {
    Arbitrary<String> plain = Arbitraries.strings()
        .withChars("abcXYZ0129 $-_'\\\u00A0\uFF0E\uFF04\u00E9\u4E2D").ofMinLength(1).ofMaxLength(20);
    Arbitrary<String> emoji = Arbitraries.of("\uD83D\uDE00", "a\uD83D\uDE00b", "\uD835\uDC00");
    return Arbitraries.oneOf(plain, emoji).filter(s -> modelFieldReason(s) == null);
  }

  @Provide
  Arbitrary<String> indexLike() {
    Arbitrary<String> digits = Arbitraries.strings().withChars("0123456789+-e .x\u0661")
        .ofMinLength(1).ofMaxLength(12);
    Arbitrary<String> numbers = Arbitraries.longs().map(n -> Long.toString(n));
    return Arbitraries.oneOf(digits, numbers);
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
