package io.writeguard.path;

import io.writeguard.path.InvalidPathException.Reason;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A validated MongoDB field path such as {@code infos.<key>.<skey>.<i>.read}, built one segment
 * at a time so that request data can never reach an update as anything but a field name or an
 * array index.
 *
 * <pre>{@code
 * FieldPath read = FieldPath.of("infos").field(key).field(skey).index(i).field("read");
 * collection.updateOne(eq("_id", id), AtomicUpdates.addToSet(read, userId));
 * }</pre>
 *
 * <p>Why a builder and not string concatenation: {@code "infos." + key + ".read"} with
 * {@code key = "a.b"} writes a different field, with {@code key = "$[]"} every array element,
 * and with an empty key a field the server rejects only after we have composed the update. Each
 * method here checks one segment ({@link PathSegments} has the rules) and throws
 * {@link InvalidPathException} naming the segment, its position and the rule it broke.
 *
 * <p>A path made with {@link #index} and one made with {@link #field} of the same digits are
 * equal: MongoDB resolves {@code a.0} against the stored value (array element or field named
 * "0"), so the two address the same thing. {@link #field} accepts {@code "01"} (a legal key);
 * use {@link #index(String)} for anything meant as an array position.
 *
 * <p>Immutable and thread-safe; every method that adds a segment returns a new path.
 */
public final class FieldPath {
  private final String[] segments;
  private final String dotted;

  private FieldPath(String[] segments) {
    this.segments = segments;
    this.dotted = String.join(".", segments);
  }

  /**
   * A path that starts with the field {@code first}.
   *
   * @throws InvalidPathException when {@code first} is not a valid field name
   */
  public static FieldPath of(String first) {
    PathSegments.checkField(first, 0, "");
    return new FieldPath(new String[] {first});
  }

  /**
   * A path of field names, e.g. {@code of("infos", key, skey)}.
   *
   * @throws InvalidPathException naming the first invalid name
   */
  public static FieldPath of(String first, String... more) {
    FieldPath path = of(first);
    for (String name : more) {
      path = path.field(name);
    }
    return path;
  }

  /**
   * Parses a dotted path written by a programmer, e.g. {@code "infos.k.s.0.read"}. Every segment
   * is checked as a field name; digit segments stay as written. Do not use this on request data
   * that may contain dots of its own: split it yourself and use {@link #field}/{@link #index}.
   *
   * @throws InvalidPathException naming the first bad segment ({@code "a..b"} has an empty one)
   */
  public static FieldPath parse(String dotted) {
    if (dotted == null) {
      throw PathSegments.fail(null, 0, "", Reason.NULL, "");
    }
    String[] parts = dotted.split("\\.", -1);
    if (parts.length > PathSegments.MAX_SEGMENTS) {
      throw PathSegments.fail(parts[PathSegments.MAX_SEGMENTS], PathSegments.MAX_SEGMENTS,
          String.join(".", Arrays.copyOf(parts, PathSegments.MAX_SEGMENTS)),
          Reason.TOO_MANY_SEGMENTS, parts.length + " segments");
    }
    StringBuilder soFar = new StringBuilder();
    for (int i = 0; i < parts.length; i++) {
      PathSegments.checkField(parts[i], i, soFar.toString());
      soFar.append(i == 0 ? "" : ".").append(parts[i]);
    }
    return new FieldPath(parts);
  }

  /**
   * This path followed by the field {@code name}.
   *
   * @throws InvalidPathException when {@code name} is not a valid field name or the path would
   *     exceed {@link PathSegments#MAX_SEGMENTS}
   */
  public FieldPath field(String name) {
    checkRoom(name);
    PathSegments.checkField(name, segments.length, dotted);
    return append(name);
  }

  /**
   * This path followed by the array index {@code index}.
   *
   * @throws InvalidPathException when {@code index} is negative
   */
  public FieldPath index(int index) {
    checkRoom(Integer.toString(index));
    PathSegments.checkIndex(index, segments.length, dotted);
    return append(Integer.toString(index));
  }

  /**
   * This path followed by the array index written as {@code index}, e.g. a request parameter.
   *
   * @throws InvalidPathException unless {@code index} is a canonical non-negative int
   *     ({@code 0}, {@code 17}; not {@code 01}, {@code -1}, {@code +1}, {@code 1e3}, {@code " 1"})
   */
  public FieldPath index(String index) {
    checkRoom(index);
    int value = PathSegments.checkIndex(index, segments.length, dotted);
    return append(Integer.toString(value));
  }

  /** The path this one extends, or empty for a one-segment path. */
  public Optional<FieldPath> parent() {
    return segments.length == 1
        ? Optional.empty()
        : Optional.of(new FieldPath(Arrays.copyOf(segments, segments.length - 1)));
  }

  /** The segments in order; unmodifiable. */
  public List<String> segments() {
    return List.of(segments);
  }

  /** Number of segments, at least 1. */
  public int size() {
    return segments.length;
  }

  /** The last segment, e.g. {@code read} in {@code infos.k.s.0.read}. */
  public String lastSegment() {
    return segments[segments.length - 1];
  }

  /** True when {@code prefix} is this path or one of its ancestors. */
  public boolean startsWith(FieldPath prefix) {
    if (prefix.segments.length > segments.length) {
      return false;
    }
    for (int i = 0; i < prefix.segments.length; i++) {
      if (!segments[i].equals(prefix.segments[i])) {
        return false;
      }
    }
    return true;
  }

  /** True when this path is a strict prefix of {@code other} ({@code a.b} of {@code a.b.c}). */
  public boolean isAncestorOf(FieldPath other) {
    return other.segments.length > segments.length && other.startsWith(this);
  }

  /**
   * True when a write to one path can change what the other reads: they are equal, or one is
   * an ancestor of the other. {@code a.b} and {@code a.c} do not overlap.
   */
  public boolean overlaps(FieldPath other) {
    return startsWith(other) || other.startsWith(this);
  }

  /** The dotted form, e.g. {@code infos.k.s.0.read}, as MongoDB update operators take it. */
  @Override
  public String toString() {
    return dotted;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FieldPath && Arrays.equals(segments, ((FieldPath) o).segments);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(segments);
  }

  private void checkRoom(String next) {
    if (segments.length >= PathSegments.MAX_SEGMENTS) {
      throw PathSegments.fail(next, segments.length, dotted, Reason.TOO_MANY_SEGMENTS, "");
    }
  }

  private FieldPath append(String segment) {
    String[] longer = Arrays.copyOf(segments, segments.length + 1);
    longer[segments.length] = segment;
    return new FieldPath(longer);
  }
}
