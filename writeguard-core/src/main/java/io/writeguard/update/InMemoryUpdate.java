package io.writeguard.update;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonType;
import org.bson.BsonValue;

/**
 * Applies MongoDB update operators to a document in memory, exactly as the server would, or
 * refuses. Package-private; group commit uses it to apply several callers' operator mutations
 * to one read before a single write.
 *
 * <p>Why it refuses so much. A combined write stores what this class computed, so any case
 * where its result could differ from the server's would corrupt data. It therefore models a
 * deliberately small, well-defined subset and throws {@link NotModelled} for everything else,
 * including every case where the server would answer with an error; group commit then sends
 * that mutation alone, as it is, and the server decides. Modelled:
 *
 * <ul>
 *   <li>{@code $set}, {@code $unset}, {@code $inc}, {@code $mul}, {@code $min}, {@code $max},
 *       {@code $push} of a value or {@code {$each: [...]}} (no other modifier),
 *       {@code $addToSet} of a value or {@code {$each: [...]}}, {@code $pull} of a value
 *       that is neither a document, an array nor a regex;
 *   <li>dotted paths through embedded documents and array indexes ({@code a.2.b}), creating
 *       missing embedded documents, padding an array with nulls when the last segment is an
 *       index past its end (by at most {@link #MAX_PADDING}), {@code $unset} of an array element
 *       setting it to null;
 *   <li>numbers of type int32, int64 and double: int32 results that overflow become int64
 *       (as the server does); an int64 overflow (a server error) is refused; Decimal128 is
 *       refused;
 *   <li>comparisons ({@code $min}/{@code $max}) between null, numbers and strings of which
 *       at most one is a string; equality ({@code $addToSet}, {@code $pull}) over documents
 *       (field order matters), arrays, numbers across types ({@code 1 == 1.0}) and plain
 *       scalar types. Two strings are never compared: the collection's default collation
 *       (which the model cannot see) decides their order and equality.
 * </ul>
 *
 * <p>Refused as well: two paths of one update that overlap (a server error), {@code _id},
 * positional segments ({@code $}, {@code $[]}), a segment met in an array that is not a
 * canonical index (the server reads {@code 01} as index 1, and answers a field name such as
 * {@code tags} with PathNotViable, even for {@code $pull}), an {@code $inc} by -0.0 of a
 * missing field (MongoDB stores -0.0, the embedded test server 0.0; a missing field is
 * otherwise given the {@code $inc} operand as it is, or the {@code $mul} operand times int32
 * 0), an empty operator, and an update that creates more than one new field in the
 * same embedded document (MongoDB 5.0+ orders such fields by name, older servers as given; one
 * new field per document is appended last by all of them). Stateless and thread-safe.
 *
 * <p>{@code InMemoryUpdateCorpusTest} runs a corpus of cases taken from MongoDB's own
 * update-node unit tests and manual through this class: each must come out exactly right or
 * be refused.
 */
final class InMemoryUpdate {
  private static final Set<String> OPERATORS =
      Set.of("$set", "$unset", "$inc", "$mul", "$min", "$max", "$push", "$addToSet", "$pull");
  /**
   * The most nulls a write past the end of an array may pad with. MongoDB refuses to pad by
   * more than 1,500,000; far below that, the model stays small and certain.
   */
  static final int MAX_PADDING = 1024;

  private InMemoryUpdate() {}

  /** The update is outside the modelled subset; the reason says which part. */
  static final class NotModelled extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotModelled(String reason) {
      super(reason, null, false, false);
    }
  }

  /**
   * {@code current} with {@code update} applied; neither {@code current} nor any container it
   * shares with the result is changed (see {@link Copies}), so the result may be given to later
   * calls while {@code current} is kept.
   *
   * @throws NotModelled when the result is not modelled exactly (nothing is applied)
   */
  static BsonDocument apply(BsonDocument current, BsonDocument update) {
    List<Op> ops = parse(update);
    Copies copies = new Copies();
    BsonDocument next = copies.own(current);
    Map<BsonValue, Boolean> grewIn = new IdentityHashMap<>();
    for (Op op : ops) {
      op.applyTo(next, grewIn, copies);
    }
    return next;
  }

  /**
   * Path copying: the result shares with {@code current} every container no operator writes,
   * and owns a shallow copy of each container it writes and of every one on the way to it. So
   * {@code current}, and every earlier result, stays as it was (group commit keeps each step's
   * state for its caller) at the cost of copying the paths written, not the whole document.
   */
  private static final class Copies {
    private final Map<BsonValue, Boolean> owned = new IdentityHashMap<>();

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

  private record Op(String operator, String path, String[] segments, BsonValue operand) {
    void applyTo(BsonDocument doc, Map<BsonValue, Boolean> grewIn, Copies copies) {
      if (operator.equals("$unset")) {
        unset(doc, segments, copies);
      } else if (operator.equals("$pull") && !exists(doc, segments)) {
        return; // nothing to pull from, and no path is created
      } else {
        write(doc, this, grewIn, copies);
      }
    }
  }

  private static List<Op> parse(BsonDocument update) {
    if (update.isEmpty()) {
      throw new NotModelled("empty update");
    }
    List<Op> ops = new ArrayList<>();
    for (Map.Entry<String, BsonValue> operator : update.entrySet()) {
      String name = operator.getKey();
      if (!OPERATORS.contains(name)) {
        throw new NotModelled("operator " + name);
      }
      if (!operator.getValue().isDocument() || operator.getValue().asDocument().isEmpty()) {
        throw new NotModelled(name + " with an operand that is not a non-empty document");
      }
      for (Map.Entry<String, BsonValue> field : operator.getValue().asDocument().entrySet()) {
        ops.add(new Op(name, field.getKey(), segments(field.getKey()), field.getValue()));
      }
    }
    for (int i = 0; i < ops.size(); i++) {
      for (int j = i + 1; j < ops.size(); j++) {
        if (overlap(ops.get(i).segments, ops.get(j).segments)) {
          throw new NotModelled("paths " + ops.get(i).path + " and " + ops.get(j).path
              + " overlap");
        }
      }
    }
    return ops;
  }

  private static String[] segments(String path) {
    String[] segments = path.split("\\.", -1);
    if (segments[0].equals("_id")) {
      throw new NotModelled("path " + path + " touches _id");
    }
    for (String s : segments) {
      if (s.isEmpty() || s.startsWith("$") || s.indexOf('\0') >= 0) {
        throw new NotModelled("path segment '" + s + "' of " + path);
      }
    }
    return segments;
  }

  private static boolean overlap(String[] a, String[] b) {
    int n = Math.min(a.length, b.length);
    for (int i = 0; i < n; i++) {
      if (!a[i].equals(b[i])) {
        return false;
      }
    }
    return true;
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

  private static void write(BsonDocument doc, Op op, Map<BsonValue, Boolean> grewIn,
      Copies copies) {
    String[] segs = op.segments;
    BsonValue container = doc;
    for (int i = 0; i < segs.length - 1; i++) {
      BsonValue next;
      int at = -1;
      if (container.isDocument()) {
        BsonDocument d = container.asDocument();
        next = d.get(segs[i]);
        if (next == null) {
          grow(d, grewIn, op.path);
          next = copies.made(new BsonDocument());
          d.put(segs[i], next);
        }
      } else {
        BsonArray a = container.asArray();
        at = arrayIndex(segs[i], op.path);
        if (at >= a.size()) {
          throw new NotModelled("path " + op.path + " runs past the end of an array");
        }
        next = a.get(at);
      }
      if (!next.isDocument() && !next.isArray()) {
        throw new NotModelled("path " + op.path + " runs through a " + next.getBsonType());
      }
      container = copies.descend(container, segs[i], at, next);
    }
    String last = segs[segs.length - 1];
    if (container.isDocument()) {
      BsonDocument d = container.asDocument();
      BsonValue now = d.get(last);
      BsonValue result = compute(op, now);
      if (result == null) {
        return; // unchanged
      }
      if (now == null) {
        grow(d, grewIn, op.path);
      }
      d.put(last, result);
    } else {
      BsonArray a = container.asArray();
      int at = arrayIndex(last, op.path);
      BsonValue now = at < a.size() ? a.get(at) : null;
      BsonValue result = compute(op, now);
      if (result == null) {
        return;
      }
      if (at < a.size()) {
        a.set(at, result);
      } else {
        if (at - a.size() > MAX_PADDING) {
          throw new NotModelled("path " + op.path + " pads an array by " + (at - a.size())
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

  /** The new value of a field now holding {@code now} (null: missing); null for no change. */
  private static BsonValue compute(Op op, BsonValue now) {
    BsonValue result = computeRaw(op, now);
    if (result != null && now != null && isPlainNumber(result) && isPlainNumber(now)
        && compareNumbers(result, now) == 0 && !result.equals(now)) {
      // An equal number of another type (5 -> 5L, 0.0 -> -0.0): MongoDB stores the new type,
      // the embedded test server keeps the old one; left to the server.
      throw new NotModelled(op.operator + " to an equal number of another type at " + op.path);
    }
    return result;
  }

  private static BsonValue computeRaw(Op op, BsonValue now) {
    BsonValue x = op.operand;
    switch (op.operator) {
      case "$set":
        return copy(x);
      case "$inc":
        return arithmetic(op, now, x, true);
      case "$mul":
        return arithmetic(op, now, x, false);
      case "$min":
      case "$max":
        if (now == null) {
          return copy(x);
        }
        if (isNaN(x) || isNaN(now)) {
          // MongoDB orders NaN below every number; the embedded test server does not, so this
          // case could not be checked against a server and is left to the server.
          throw new NotModelled(op.operator + " with NaN at " + op.path);
        }
        int c = compare(x, now, op.path);
        boolean replace = op.operator.equals("$min") ? c < 0 : c > 0;
        return replace ? copy(x) : null;
      case "$push":
        return push(op, now, each(op, x), false);
      case "$addToSet":
        return push(op, now, each(op, x), true);
      case "$pull":
        return pull(op, now, x);
      default:
        throw new NotModelled("operator " + op.operator);
    }
  }

  private static BsonValue arithmetic(Op op, BsonValue now, BsonValue x, boolean add) {
    if (!isPlainNumber(x)) {
      throw new NotModelled(op.operator + " by a " + x.getBsonType());
    }
    if (now == null) {
      // The server (arithmetic_node.cpp, setValueForNewElement) stores an $inc's operand as it
      // is (-0.0 stays -0.0) and, for $mul, the operand times int32 0: zero of the operand's
      // type, -0.0 for a negative double or -0.0, NaN for an infinite or NaN double.
      if (add && x.isDouble() && Double.doubleToRawLongBits(x.asDouble().getValue())
          == Double.doubleToRawLongBits(-0.0)) {
        // MongoDB stores -0.0; the embedded test server stores 0.0, so the model could not be
        // checked against a server: left to the server.
        throw new NotModelled("$inc by -0.0 of a missing field at " + op.path);
      }
      return add ? x : arithmetic(op, x, new BsonInt32(0), false);
    }
    if (!isPlainNumber(now)) {
      throw new NotModelled(op.operator + " of a " + now.getBsonType() + " at " + op.path);
    }
    if (now.isDouble() || x.isDouble()) {
      double a = now.asNumber().doubleValue();
      double b = x.asNumber().doubleValue();
      return new BsonDouble(add ? a + b : a * b);
    }
    long a = now.asNumber().longValue();
    long b = x.asNumber().longValue();
    long r;
    try {
      r = add ? Math.addExact(a, b) : Math.multiplyExact(a, b);
    } catch (ArithmeticException e) {
      throw new NotModelled(op.operator + " overflows int64 at " + op.path);
    }
    if (now.isInt32() && x.isInt32() && r == (int) r) {
      return new BsonInt32((int) r);
    }
    return new BsonInt64(r);
  }

  /** A deep copy of containers; scalars are immutable and shared. */
  private static BsonValue copy(BsonValue v) {
    if (v.isDocument()) {
      return v.asDocument().clone();
    }
    return v.isArray() ? v.asArray().clone() : v;
  }

  private static boolean isNaN(BsonValue v) {
    return v.isDouble() && Double.isNaN(v.asDouble().getValue());
  }

  private static boolean isPlainNumber(BsonValue v) {
    return v.isInt32() || v.isInt64() || v.isDouble();
  }

  /** The values a $push / $addToSet adds: the operand, or the elements of {@code {$each: [...]}}. */
  private static List<BsonValue> each(Op op, BsonValue x) {
    if (x.isDocument() && x.asDocument().isEmpty()) {
      // Added as a value by MongoDB; refused here because the embedded test server rejects
      // it, so the model could not be checked against a server.
      throw new NotModelled(op.operator + " of an empty document");
    }
    if (x.isDocument() && hasOperatorKey(x.asDocument())) {
      BsonDocument d = x.asDocument();
      if (d.size() != 1 || !d.containsKey("$each") || !d.get("$each").isArray()) {
        throw new NotModelled(op.operator + " with modifiers " + d.keySet());
      }
      return d.getArray("$each").getValues();
    }
    return List.of(x);
  }

  private static boolean hasOperatorKey(BsonDocument d) {
    for (String key : d.keySet()) {
      if (key.startsWith("$")) {
        return true;
      }
    }
    return false;
  }

  private static BsonValue push(Op op, BsonValue now, List<BsonValue> values, boolean asSet) {
    if (now != null && !now.isArray()) {
      throw new NotModelled(op.operator + " to a " + now.getBsonType() + " at " + op.path);
    }
    BsonArray result = now == null ? new BsonArray() : now.asArray().clone();
    for (BsonValue v : values) {
      if (asSet && contains(result, v, op.path)) {
        continue;
      }
      result.add(copy(v));
    }
    return result;
  }

  private static boolean contains(BsonArray array, BsonValue value, String path) {
    for (BsonValue element : array) {
      if (same(element, value, path)) {
        return true;
      }
    }
    return false;
  }

  private static BsonValue pull(Op op, BsonValue now, BsonValue x) {
    if (x.isDocument() || x.isArray() || x.isRegularExpression()) {
      throw new NotModelled("$pull by a " + x.getBsonType() + " (a condition, not a value)");
    }
    if (now == null) {
      return null;
    }
    if (!now.isArray()) {
      throw new NotModelled("$pull from a " + now.getBsonType() + " at " + op.path);
    }
    BsonArray kept = new BsonArray();
    for (BsonValue element : now.asArray()) {
      if (element.isArray()) {
        throw new NotModelled("$pull over nested arrays at " + op.path);
      }
      if (!same(element, x, op.path)) {
        kept.add(element);
      }
    }
    return kept;
  }

  /**
   * Whether a value is stored at the path (through documents and in-range indexes). A segment
   * in an array that is not a canonical index is refused: the server reads {@code 01} as index
   * 1, and answers PathNotViable for a field name such as {@code tags} in an array.
   */
  private static boolean exists(BsonDocument doc, String[] segs) {
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

  private static void unset(BsonDocument doc, String[] segs, Copies copies) {
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

  // ---- comparison and equality in BSON order ----

  /** The server's order for null, numbers and strings; anything else is not modelled. */
  private static int compare(BsonValue a, BsonValue b, String path) {
    int ra = rank(a, path);
    int rb = rank(b, path);
    if (ra != rb) {
      return Integer.compare(ra, rb);
    }
    if (ra == 1) {
      checkComparableNumbers(a, b, path);
    }
    return switch (ra) {
      case 0 -> 0;
      case 1 -> compareNumbers(a, b);
      default -> throw stringsCompared(path);
    };
  }

  /**
   * Two strings compare by the collection's default collation, which the model cannot see
   * (a case-insensitive one makes "a" equal "A"): left to the server.
   */
  private static NotModelled stringsCompared(String path) {
    return new NotModelled("comparing two strings at " + path
        + " (the collection's collation decides)");
  }

  private static int rank(BsonValue v, String path) {
    if (v.isNull()) {
      return 0;
    }
    if (isPlainNumber(v)) {
      return 1;
    }
    if (v.isString()) {
      return 2;
    }
    throw new NotModelled("comparing a " + v.getBsonType() + " at " + path);
  }

  /**
   * Refuses the number pairs the embedded test server compares differently from MongoDB
   * (which compares exactly and treats -0.0 as 0): -0.0, and an int64 beyond 2^53 against a
   * double. Left to the server.
   */
  private static void checkComparableNumbers(BsonValue a, BsonValue b, String path) {
    for (BsonValue v : new BsonValue[] {a, b}) {
      if (v.isDouble() && v.asDouble().getValue() == 0.0
          && Double.doubleToRawLongBits(v.asDouble().getValue()) != 0L) {
        throw new NotModelled("comparing -0.0 at " + path);
      }
    }
    if (a.isDouble() != b.isDouble()) {
      BsonValue integral = a.isDouble() ? b : a;
      if (Math.abs((double) integral.asNumber().longValue()) >= 0x1p53) {
        throw new NotModelled("comparing an integer beyond 2^53 with a double at " + path);
      }
    }
  }

  private static int compareNumbers(BsonValue a, BsonValue b) {
    if (!a.isDouble() && !b.isDouble()) {
      return Long.compare(a.asNumber().longValue(), b.asNumber().longValue());
    }
    double da = a.isDouble() ? a.asDouble().getValue() : Double.NaN;
    double db = b.isDouble() ? b.asDouble().getValue() : Double.NaN;
    boolean nanA = a.isDouble() && Double.isNaN(da);
    boolean nanB = b.isDouble() && Double.isNaN(db);
    if (nanA || nanB) {
      return nanA && nanB ? 0 : nanA ? -1 : 1; // NaN sorts below every number
    }
    if (a.isDouble() && Double.isInfinite(da) || b.isDouble() && Double.isInfinite(db)) {
      double x = a.isDouble() ? da : a.asNumber().longValue();
      double y = b.isDouble() ? db : b.asNumber().longValue();
      return Double.compare(x == 0 ? 0.0 : x, y == 0 ? 0.0 : y);
    }
    return exact(a).compareTo(exact(b));
  }

  private static BigDecimal exact(BsonValue v) {
    return v.isDouble() ? new BigDecimal(v.asDouble().getValue())
        : BigDecimal.valueOf(v.asNumber().longValue());
  }

  /**
   * Equality as the server's comparison sees it ({@code 1 == 1.0}; documents by field order);
   * two strings are not modelled.
   */
  static boolean same(BsonValue a, BsonValue b, String path) {
    checkComparable(a, path);
    checkComparable(b, path);
    if (isPlainNumber(a) && isPlainNumber(b)) {
      checkComparableNumbers(a, b, path);
      return compareNumbers(a, b) == 0;
    }
    if (a.getBsonType() != b.getBsonType()) {
      return false;
    }
    if (a.isString()) {
      throw stringsCompared(path);
    }
    if (a.isDocument()) {
      BsonDocument x = a.asDocument();
      BsonDocument y = b.asDocument();
      if (x.size() != y.size()) {
        return false;
      }
      var ix = x.entrySet().iterator();
      var iy = y.entrySet().iterator();
      while (ix.hasNext()) {
        var ex = ix.next();
        var ey = iy.next();
        if (!ex.getKey().equals(ey.getKey()) || !same(ex.getValue(), ey.getValue(), path)) {
          return false;
        }
      }
      return true;
    }
    if (a.isArray()) {
      List<BsonValue> x = a.asArray().getValues();
      List<BsonValue> y = b.asArray().getValues();
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!same(x.get(i), y.get(i), path)) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }

  private static void checkComparable(BsonValue v, String path) {
    BsonType t = v.getBsonType();
    if (t == BsonType.DECIMAL128 || t == BsonType.SYMBOL || t == BsonType.UNDEFINED
        || t == BsonType.DB_POINTER || t == BsonType.JAVASCRIPT
        || t == BsonType.JAVASCRIPT_WITH_SCOPE) {
      throw new NotModelled("comparing a " + t + " at " + path);
    }
  }
}
