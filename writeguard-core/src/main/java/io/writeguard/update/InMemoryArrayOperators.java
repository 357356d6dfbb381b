package io.writeguard.update;

import io.writeguard.update.InMemoryUpdate.NotModelled;
import io.writeguard.update.InMemoryUpdate.Op;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The array operators of {@link InMemoryUpdate}: {@code $push} and {@code $addToSet} of a value
 * or of {@code {$each: [...]}} (no other modifier), and {@code $pull} of a value that is
 * neither a document, an array nor a regex (those are conditions, not values). Membership is
 * equality as {@link InMemoryOrder#same} models it. Each method takes the value now at the
 * path (null: missing) and returns the new array, or null for no change. Stateless and
 * thread-safe.
 */
final class InMemoryArrayOperators {
  private InMemoryArrayOperators() {}

  /** {@code $push}, or {@code $addToSet} ({@code asSet}) of the operand's values. */
  static BsonValue push(Op op, BsonValue now, boolean asSet) {
    List<BsonValue> values = each(op, op.operand());
    if (now != null && !now.isArray()) {
      throw new NotModelled(op.operator() + " to a " + now.getBsonType() + " at " + op.path());
    }
    BsonArray result = now == null ? new BsonArray() : now.asArray().clone();
    for (BsonValue v : values) {
      if (asSet && contains(result, v, op.path())) {
        continue;
      }
      result.add(InMemoryPaths.copy(v));
    }
    return result;
  }

  /**
   * The values a $push / $addToSet adds: the operand, or the elements of
   * {@code {$each: [...]}}.
   */
  private static List<BsonValue> each(Op op, BsonValue x) {
    if (x.isDocument() && x.asDocument().isEmpty()) {
      // Added as a value by MongoDB; refused here because the embedded test server rejects
      // it, so the model could not be checked against a server.
      throw new NotModelled(op.operator() + " of an empty document");
    }
    if (x.isDocument() && hasOperatorKey(x.asDocument())) {
      BsonDocument d = x.asDocument();
      if (d.size() != 1 || !d.containsKey("$each") || !d.get("$each").isArray()) {
        throw new NotModelled(op.operator() + " with modifiers " + d.keySet());
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

  private static boolean contains(BsonArray array, BsonValue value, String path) {
    for (BsonValue element : array) {
      if (InMemoryOrder.same(element, value, path)) {
        return true;
      }
    }
    return false;
  }

  /** {@code $pull} of the operand: every element equal to it. */
  static BsonValue pull(Op op, BsonValue now) {
    BsonValue x = op.operand();
    if (x.isDocument() || x.isArray() || x.isRegularExpression()) {
      throw new NotModelled("$pull by a " + x.getBsonType() + " (a condition, not a value)");
    }
    if (now == null) {
      return null;
    }
    if (!now.isArray()) {
      throw new NotModelled("$pull from a " + now.getBsonType() + " at " + op.path());
    }
    BsonArray kept = new BsonArray();
    for (BsonValue element : now.asArray()) {
      if (element.isArray()) {
        throw new NotModelled("$pull over nested arrays at " + op.path());
      }
      if (!InMemoryOrder.same(element, x, op.path())) {
        kept.add(element);
      }
    }
    return kept;
  }
}
