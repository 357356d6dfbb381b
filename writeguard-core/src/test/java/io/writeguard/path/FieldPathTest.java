package io.writeguard.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.writeguard.path.InvalidPathException.Reason;
import org.junit.jupiter.api.Test;

class FieldPathTest {

  @Test
  void buildsTheSeedsReadPath() {
    FieldPath read = FieldPath.of("infos").field("k1").field("s1").index("3").field("read");
    assertThat(read.toString()).isEqualTo("infos.k1.s1.3.read");
    assertThat(read.segments()).containsExactly("infos", "k1", "s1", "3", "read");
    assertThat(read.size()).isEqualTo(5);
    assertThat(read.lastSegment()).isEqualTo("read");
    assertThat(read.parent()).contains(FieldPath.parse("infos.k1.s1.3"));
    assertThat(FieldPath.of("infos").parent()).isEmpty();
    assertThat(FieldPath.of("infos", "k1", "s1")).isEqualTo(FieldPath.parse("infos.k1.s1"));
  }

  @Test
  void messageNamesTheSegmentItsPositionThePathSoFarAndTheRule() {
    assertThatThrownBy(() -> FieldPath.of("infos").field("k").field("$where"))
        .isInstanceOf(InvalidPathException.class)
        .hasMessage("invalid field path segment #2 '$where' after 'infos.k': starts with '$'"
            + " (an operator or positional placeholder, not a field name)");
    assertThatThrownBy(() -> FieldPath.of("infos").field("a.b"))
        .hasMessage("invalid field path segment #1 'a.b' after 'infos': contains '.'"
            + " (it would split into two path segments) (at char 1)");
    assertThatThrownBy(() -> FieldPath.of("infos").field("k").index("01"))
        .hasMessageStartingWith("invalid field path segment #2 '01' after 'infos.k': is not an array index");
    assertThatThrownBy(() -> FieldPath.of("infos").field("a\0b"))
        .hasMessage("invalid field path segment #1 'a\\u0000b' after 'infos': contains NUL"
            + " (it ends a BSON field name) (at char 1)");
    assertThatThrownBy(() -> PathSegments.checkField(""))
        .hasMessage("invalid field path segment '': is empty");
    assertThatThrownBy(() -> PathSegments.checkIndex("2147483648"))
        .hasMessage("invalid field path segment '2147483648': is past the largest array index 2147483647");
  }

  @Test
  void exceptionCarriesTheDetailsForAnHttpLayer() {
    InvalidPathException e = catchThrowableOfType(InvalidPathException.class,
        () -> FieldPath.of("infos").field("k").field(" \u3000 "));
    assertThat(e.reason()).isEqualTo(Reason.BLANK);
    assertThat(e.position()).isEqualTo(2);
    assertThat(e.segment()).isEqualTo(" \u3000 ");
    assertThat(e.pathSoFar()).isEqualTo("infos.k");
    assertThat(e).isInstanceOf(io.writeguard.WriteGuardException.class);
  }

  @Test
  void rejectsInjectionShapes() {
    assertReason(() -> FieldPath.of("infos").field("$[]"), Reason.DOLLAR_PREFIX);
    assertReason(() -> FieldPath.of("infos").field("$[elem]"), Reason.DOLLAR_PREFIX);
    assertReason(() -> FieldPath.of("infos").field("$"), Reason.DOLLAR_PREFIX);
    assertReason(() -> FieldPath.of("infos").field(null), Reason.NULL);
    assertReason(() -> FieldPath.of("infos").field("line\nbreak"), Reason.CONTROL_CHARACTER);
    assertReason(() -> FieldPath.of("infos").field("x\u0085"), Reason.CONTROL_CHARACTER);
    assertReason(() -> FieldPath.of("infos").field("a\uD800"), Reason.UNPAIRED_SURROGATE);
    assertReason(() -> FieldPath.of("infos").field("x".repeat(257)), Reason.TOO_LONG);
    assertReason(() -> FieldPath.of("infos").index(-1), Reason.NEGATIVE_INDEX);
    assertReason(() -> FieldPath.of("infos").index("-0"), Reason.NOT_AN_INDEX);
    assertReason(() -> FieldPath.of("infos").index("1e3"), Reason.NOT_AN_INDEX);
    assertReason(() -> FieldPath.of("infos").index("\u0661"), Reason.NOT_AN_INDEX);
    assertReason(() -> FieldPath.of("infos").index((String) null), Reason.NULL);
  }

  @Test
  void acceptsDataThatOnlyLooksOdd() {
    FieldPath p = FieldPath.of("a$b").field(" padded ").field("\uFF0E\uFF04where").field("\uD83D\uDE00")
        .field("x".repeat(256)).field("01");
    assertThat(p.size()).isEqualTo(6);
    assertThat(p.segments().get(2)).isEqualTo("\uFF0E\uFF04where");
  }

  @Test
  void longMessagesAreShortened() {
    InvalidPathException e = catchThrowableOfType(InvalidPathException.class,
        () -> PathSegments.checkField("$" + "y".repeat(200)));
    assertThat(e.getMessage()).contains("... (201 chars)").hasSizeLessThan(200);
  }

  @Test
  void parseRejectsEmptySegmentsAndSaysWhere() {
    InvalidPathException e = catchThrowableOfType(InvalidPathException.class,
        () -> FieldPath.parse("infos..read"));
    assertThat(e.reason()).isEqualTo(Reason.EMPTY);
    assertThat(e.position()).isEqualTo(1);
    assertReason(() -> FieldPath.parse(".a"), Reason.EMPTY);
    assertReason(() -> FieldPath.parse("a."), Reason.EMPTY);
    assertReason(() -> FieldPath.parse(""), Reason.EMPTY);
    assertReason(() -> FieldPath.parse("a.$set.b"), Reason.DOLLAR_PREFIX);
    assertReason(() -> FieldPath.parse(null), Reason.NULL);
  }

  @Test
  void boundsTheNumberOfSegments() {
    FieldPath p = FieldPath.of("s0");
    for (int i = 1; i < PathSegments.MAX_SEGMENTS; i++) {
      p = p.field("s" + i);
    }
    assertThat(p.size()).isEqualTo(PathSegments.MAX_SEGMENTS);
    FieldPath full = p;
    assertReason(() -> full.field("more"), Reason.TOO_MANY_SEGMENTS);
    assertReason(() -> full.index(0), Reason.TOO_MANY_SEGMENTS);
    assertThat(FieldPath.parse(full.toString())).isEqualTo(full);
    assertReason(() -> FieldPath.parse(full + ".more"), Reason.TOO_MANY_SEGMENTS);
  }

  @Test
  void ancestryAndOverlapFollowSegmentsNotCharacters() {
    FieldPath item = FieldPath.parse("infos.k.s.0");
    FieldPath read = item.field("read");
    assertThat(item.isAncestorOf(read)).isTrue();
    assertThat(read.isAncestorOf(item)).isFalse();
    assertThat(item.isAncestorOf(item)).isFalse();
    assertThat(item.overlaps(read)).isTrue();
    assertThat(read.overlaps(item)).isTrue();
    assertThat(item.overlaps(item)).isTrue();
    assertThat(item.overlaps(FieldPath.parse("infos.k.s.1"))).isFalse();
    // "infos.k" is a string prefix of "infos.kk" but not a path prefix
    assertThat(FieldPath.parse("infos.k").overlaps(FieldPath.parse("infos.kk"))).isFalse();
    assertThat(FieldPath.parse("infos.k").startsWith(FieldPath.parse("infos"))).isTrue();
  }

  @Test
  void equalityIsBySegments() {
    assertThat(FieldPath.of("a").index(0)).isEqualTo(FieldPath.parse("a.0"))
        .hasSameHashCodeAs(FieldPath.parse("a.0"));
    assertThat(FieldPath.of("a").field("0")).isEqualTo(FieldPath.of("a").index("0"));
    assertThat(FieldPath.parse("a.b")).isNotEqualTo(FieldPath.parse("a.c"));
  }

  private static void assertReason(org.assertj.core.api.ThrowableAssert.ThrowingCallable call,
      Reason reason) {
    InvalidPathException e = catchThrowableOfType(InvalidPathException.class, call);
    assertThat(e).as("expected %s", reason).isNotNull();
    assertThat(e.reason()).isEqualTo(reason);
  }
}
