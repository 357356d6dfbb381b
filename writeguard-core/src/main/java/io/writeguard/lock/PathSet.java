package io.writeguard.lock;

import io.writeguard.path.FieldPath;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * The field paths one path lock covers, reduced to the fewest paths that cover the same fields:
 * duplicates and paths under another path of the set are dropped ({@code a} covers
 * {@code a.b}). The empty set means the whole document. Immutable and thread-safe.
 */
final class PathSet {
  static final PathSet WHOLE_DOCUMENT = new PathSet(List.of());

  private final List<FieldPath> paths;

  private PathSet(List<FieldPath> paths) {
    this.paths = paths;
  }

  /** Validates and reduces {@code requested}; it must hold at least one path and no null. */
  static PathSet of(Collection<FieldPath> requested) {
    if (requested == null || requested.isEmpty()) {
      throw new IllegalArgumentException("paths must name at least one field path, was " + requested
          + " (acquire(documentKey, timeout) locks the whole document)");
    }
    List<FieldPath> sorted = new ArrayList<>(requested.size());
    int i = 0;
    for (FieldPath path : requested) {
      if (path == null) {
        throw new IllegalArgumentException("paths[" + i + "] is null in " + requested);
      }
      sorted.add(path);
      i++;
    }
    // Sorted by segments, an ancestor comes right before its descendants.
    sorted.sort(Comparator.comparing(FieldPath::segments, PathSet::compareSegments));
    List<FieldPath> reduced = new ArrayList<>(sorted.size());
    for (FieldPath path : sorted) {
      if (reduced.isEmpty() || !path.startsWith(reduced.get(reduced.size() - 1))) {
        reduced.add(path);
      }
    }
    return new PathSet(List.copyOf(reduced));
  }

  private static int compareSegments(List<String> a, List<String> b) {
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      int c = a.get(i).compareTo(b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.size(), b.size());
  }

  boolean isWholeDocument() {
    return paths.isEmpty();
  }

  List<FieldPath> paths() {
    return paths;
  }

  /** Two locks conflict when either is the whole document or a path of one overlaps one of the other. */
  boolean conflictsWith(PathSet other) {
    if (isWholeDocument() || other.isWholeDocument()) {
      return true;
    }
    for (FieldPath mine : paths) {
      for (FieldPath theirs : other.paths) {
        if (mine.overlaps(theirs)) {
          return true;
        }
      }
    }
    return false;
  }

  /** {@code doc} for the whole document, else {@code doc [a.b, c]}. */
  String describe(String documentKey) {
    return isWholeDocument() ? documentKey : documentKey + " " + paths;
  }

  @Override
  public String toString() {
    return isWholeDocument() ? "(whole document)" : paths.toString();
  }
}
