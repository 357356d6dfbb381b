package io.writeguard.update;

import io.writeguard.update.InMemoryUpdate.NotModelled;
import io.writeguard.update.InMemoryUpdate.Op;
import java.util.IdentityHashMap;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonValue;

/**
 * The paths of {@link InMemoryUpdate}: walking a dotted path through embedded documents and
 * array indexes to the value an operator changes, creating the embedded documents missing on
 * the way, padding an array with nulls up to an index past its end (by at most
 * {@link #MAX_PADDING}), and removing a field ({@code $unset}; of an array element, setting it
 * to null). What the server would refuse, or answer in a way the model cannot check
 * (a segment in an array that is not a canonical index, a path through a scalar, a second new
 * field in one embedded document), throws {@link NotModelled}. Stateless and thread-safe; a
 * {@link Copies} belongs to one {@link InMemoryUpdate#apply}.
 */
final class InMemoryPaths {
  /**
   * The most nulls a write past the end of an array may pad with. MongoDB refuses to pad by
   * more than 1,500,000; far below that, the model stays small and certain.
   */
  static final int MAX_PADDING = 1024;

  private InMemoryPaths() {}

  /**
   * Path copying: the result shares with {@code current} every container no operator writes,
   * and owns a shallow copy of each container it writes and of every one on the way to it. So
   * {@code current}, and every earlier result, stays as it was (group commit keeps each step's
   * state for its caller) at the cost of copying the paths written, not the whole document.
   */
  static final class Copies {
    private final Map<BsonValue, Boolean> owned = new IdentityHashMap<>(4); // a few paths

    /** A shallow copy of {@code doc}, owned by this result. */
    BsonDocument own(BsonDocument doc) {
      BsonDocument copy = new BsonDocument(doc.size() + 1);
      copy.putAll(doc);
      owned.put(copy, Boolean.TRUE);
      return copy;
    }

    /** A new container made by this result (owned from the start). */
    <V extends BsonValue> V made(V container) {
      owned.put(container, Boolean.TRUE);
      return container;
    }

    /** {@code child}, or a shallow copy of it this result owns, linked into its parent. */
    BsonValue descend(BsonValue parent, String key, int index, BsonValue child) {
      if (owned.containsKey(child)) {
        return child;
      }
      BsonValue copy;
      if (child.isDocument()) {
        copy = own(child.asDocument());
      } else {
        copy = made(new BsonArray(child.asArray().getValues())); // copies the list
      }
      if (parent.isDocument()) {
        parent.asDocument().put(key, copy);
      } else {
        parent.asArray().set(index, copy);
      }
      return copy;
    }
  }

  /** A deep copy of containers; scalars are immutable and shared. */
  static BsonValue copy(BsonValue v) {
    if (v.isDocument()) {
      return v.asDocument().clone();
    }
    return v.isArray() ? v.asArray().clone() : v;
  }

  /** A canonical array index ({@code 0}, {@code 12}, not {@code 01} nor empty), or -1. */
  static int index(String segment) {
    if (segment.isEmpty() || segment.length() > 9
        || (segment.length() > 1 && segment.charAt(0) == '0')) {
      return -1;
    }
    for (int i = 0; i < segment.length(); i++) {
      if (segment.charAt(i) < '0' || segment.charAt(i) > '9') {
        return -1;
      }
    }
    return Integer.parseInt(segment);
  }

  private static int arrayIndex(String segment, String why) {
    int i = index(segment);
    if (i < 0) {
      throw new NotModelled(why + ": '" + segment + "' in an array");
    }
    return i;
  }

  // ---- writes: every operator but $unset ----

  static void write(BsonDocument doc, Op op, Map<BsonValue, Boolean> grewIn, Copies copies) {
    String[] segs = op.segments();
    BsonValue container = doc;
    for (int i = 0; i < segs.length - 1; i++) {
      BsonValue next;
      int at = -1;
      if (container.isDocument()) {
        BsonDocument d = container.asDocument();
        next = d.get(segs[i]);
        if (next == null) {
          grow(d, grewIn, op.path());
          next = copies.made(new BsonDocument());
          d.put(segs[i], next);
        }
      } else {
        BsonArray a = container.asArray();
        at = arrayIndex(segs[i], op.path());
        if (at >= a.size()) {
          throw new NotModelled("path " + op.path() + " runs past the end of an array");
        }
        next = a.get(at);
      }
      if (!next.isDocument() && !next.isArray()) {
        throw new NotModelled("path " + op.path() + " runs through a " + next.getBsonType());
      }
      container = copies.descend(container, segs[i], at, next);
    }
    String last = segs[segs.length - 1];
    if (container.isDocument()) {
      BsonDocument d = container.asDocument();
      BsonValue now = d.get(last);
      BsonValue result = op.newValue(now);
      if (result == null) {
        return; // unchanged
      }
      if (now == null) {
        grow(d, grewIn, op.path());
      }
      d.put(last, result);
    } else {
      BsonArray a = container.asArray();
      int at = arrayIndex(last, op.path());
      BsonValue now = at < a.size() ? a.get(at) : null;
      BsonValue result = op.newValue(now);
      if (result == null) {
        return;
      }
      if (at < a.size()) {
        a.set(at, result);
      } else {
        if (at - a.size() > MAX_PADDING) {
          throw new NotModelled("path " + op.path() + " pads an array by " + (at - a.size())
              + " nulls; the server limits padding");
        }
        while (a.size() < at) {
          a.add(BsonNull.VALUE);
        }
        a.add(result);
      }
    }
  }

  private static void grow(BsonDocument d, Map<BsonValue, Boolean> grewIn, String path) {
    if (grewIn.put(d, Boolean.TRUE) != null) {
      throw new NotModelled("a second new field in one embedded document (" + path
          + "): servers order new fields differently");
    }
  }

  /**
   * Whether a value is stored at the path (through documents and in-range indexes). A segment
   * in an array that is not a canonical index is refused: the server reads {@code 01} as index
   * 1, and answers PathNotViable for a field name such as {@code tags} in an array.
   */
  static boolean exists(BsonDocument doc, String[] segs) {
    BsonValue at = doc;
    for (String seg : segs) {
      if (at.isDocument()) {
        at = at.asDocument().get(seg);
      } else if (at.isArray()) {
        int i = arrayIndex(seg, String.join(".", segs));
        at = i < at.asArray().size() ? at.asArray().get(i) : null;
      } else {
        throw new NotModelled("path runs through a " + at.getBsonType());
      }
      if (at == null) {
        return false;
      }
    }
    return true;
  }

  // ---- $unset ----

  static void unset(BsonDocument doc, String[] segs, Copies copies) {
    BsonValue container = doc;
    for (int i = 0; i < segs.length - 1; i++) {
      BsonValue next;
      int at = -1;
      if (container.isDocument()) {
        next = container.asDocument().get(segs[i]);
      } else {
        at = arrayIndex(segs[i], "$unset");
        next = at < container.asArray().size() ? container.asArray().get(at) : null;
      }
      if (next == null) {
        return; // nothing there: nothing to remove
      }
      if (!next.isDocument() && !next.isArray()) {
        throw new NotModelled("$unset through a " + next.getBsonType());
      }
      container = copies.descend(container, segs[i], at, next);
    }
    String last = segs[segs.length - 1];
    if (container.isDocument()) {
      container.asDocument().remove(last);
    } else {
      BsonArray a = container.asArray();
      int at = arrayIndex(last, "$unset");
      if (at < a.size()) {
        a.set(at, BsonNull.VALUE); // the server keeps the array's length
      }
    }
  }
}
