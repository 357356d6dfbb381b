package io.writeguard.update;

import io.writeguard.update.InMemoryPaths.Copies;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonDocument;
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
 * that mutation alone, as it is, and the server decides. Modelled, each part by its own class:
 *
 * <ul>
 *   <li>{@code $set}, {@code $inc}, {@code $mul}, {@code $min}, {@code $max} on numbers of type
 *       int32, int64 and double ({@link InMemoryFieldOperators}; Decimal128 is refused);
 *   <li>{@code $push} and {@code $addToSet} of a value or {@code {$each: [...]}} (no other
 *       modifier), {@code $pull} of a value that is neither a document, an array nor a regex
 *       ({@link InMemoryArrayOperators});
 *   <li>dotted paths through embedded documents and array indexes ({@code a.2.b}), creating
 *       missing embedded documents, padding an array with nulls when the last segment is an
 *       index past its end, {@code $unset} ({@link InMemoryPaths});
 *   <li>comparison and equality in the server's order, never of two strings: the collection's
 *       default collation (which the model cannot see) decides their order and equality
 *       ({@link InMemoryOrder}).
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
 * <p>This class parses and checks the update, then applies its operators in order. What the
 * server's storage validation would refuse (too deep, a {@code $}-name inside a value) is
 * computed here like any value; {@link MergedWrite} keeps such a caller out of a merge
 * ({@link InMemoryStorage}), since only a later caller's change could hide the refusal.
 *
 * <p>{@code InMemoryUpdateCorpusTest} runs a corpus of cases taken from MongoDB's own
 * update-node unit tests and manual through this class: each must come out exactly right or
 * be refused.
 */
final class InMemoryUpdate {
  private static final Set<String> OPERATORS =
      Set.of("$set", "$unset", "$inc", "$mul", "$min", "$max", "$push", "$addToSet", "$pull");

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
    return apply(current, parse(update));
  }

  /** {@link #apply(BsonDocument, BsonDocument)} of an update already {@link #parse}d. */
  static BsonDocument apply(BsonDocument current, List<Op> ops) {
    Copies copies = new Copies();
    BsonDocument next = copies.own(current);
    Map<BsonValue, Boolean> grewIn = new IdentityHashMap<>(4); // documents given a new key
    for (Op op : ops) {
      op.applyTo(next, grewIn, copies);
    }
    return next;
  }

  /** One operator on one path of the update. */
  record Op(String operator, String path, String[] segments, BsonValue operand) {
    void applyTo(BsonDocument doc, Map<BsonValue, Boolean> grewIn, Copies copies) {
      if (operator.equals("$unset")) {
        InMemoryPaths.unset(doc, segments, copies);
      } else if (operator.equals("$pull") && !InMemoryPaths.exists(doc, segments)) {
        return; // nothing to pull from, and no path is created
      } else {
        InMemoryPaths.write(doc, this, grewIn, copies);
      }
    }

    /** The new value of a field now holding {@code now} (null: missing); null for no change. */
    BsonValue newValue(BsonValue now) {
      BsonValue result = computed(now);
      if (result != null && now != null && InMemoryOrder.isPlainNumber(result)
          && InMemoryOrder.isPlainNumber(now)
          && InMemoryOrder.compareNumbers(result, now) == 0 && !result.equals(now)) {
        // An equal number of another type (5 -> 5L, 0.0 -> -0.0): MongoDB stores the new type,
        // the embedded test server keeps the old one; left to the server.
        throw new NotModelled(operator + " to an equal number of another type at " + path);
      }
      return result;
    }

    private BsonValue computed(BsonValue now) {
      switch (operator) {
        case "$set":
          return InMemoryFieldOperators.set(this);
        case "$inc":
          return InMemoryFieldOperators.arithmetic(this, now, operand, true);
        case "$mul":
          return InMemoryFieldOperators.arithmetic(this, now, operand, false);
        case "$min":
        case "$max":
          return InMemoryFieldOperators.minOrMax(this, now);
        case "$push":
          return InMemoryArrayOperators.push(this, now, false);
        case "$addToSet":
          return InMemoryArrayOperators.push(this, now, true);
        case "$pull":
          return InMemoryArrayOperators.pull(this, now);
        default:
          throw new NotModelled("operator " + operator);
      }
    }
  }

  /**
   * The update's operators, one per path, in order (what {@link MergedWrite} merges too).
   *
   * @throws NotModelled when the update is outside the modelled subset
   */
  static List<Op> parse(BsonDocument update) {
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
        if (overlap(ops.get(i).segments(), ops.get(j).segments())) {
          throw new NotModelled("paths " + ops.get(i).path() + " and " + ops.get(j).path()
              + " overlap");
        }
      }
    }
    return ops;
  }

  private static String[] segments(String path) {
    String[] segments = path.indexOf('.') < 0 ? new String[] {path} : path.split("\\.", -1);
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
}
