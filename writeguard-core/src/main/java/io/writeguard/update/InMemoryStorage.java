package io.writeguard.update;

import io.writeguard.update.InMemoryUpdate.NotModelled;
import io.writeguard.update.InMemoryUpdate.Op;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The server's storage validation of the values an update or replacement writes, as far as
 * group commit must know it: a caller whose values it may refuse joins no merge, so its update
 * is sent as it is and the server answers it ({@link MergedWrite}). Stateless and thread-safe.
 *
 * <p>Why it matters. A merged write stores only the round's last state of a path: a value one
 * caller wrote and a later caller overwrote never reaches the server, so a refusal of it
 * would be lost and the caller told its update was written. Two checks, the strictest of the
 * supported servers (4.2 and later):
 *
 * <ul>
 *   <li>depth: a top-level field is at level 1, each element inside a document or an array one
 *       level deeper, and no element may be deeper than {@link #MAX_LEVEL} (MongoDB's default
 *       {@code maxBSONDepth} of 200 less the 20 levels it keeps for itself; a server started
 *       with a lower {@code maxBSONDepth} refuses less deep values, which this does not know);
 *   <li>field names: a name starting with {@code $} anywhere inside a value (MongoDB before
 *       5.0, or 5.0 and later at feature compatibility 4.4, refuses it unless it is part of a
 *       DBRef; the model refuses DBRefs too, which only means they are not merged).
 * </ul>
 */
final class InMemoryStorage {
  /** The deepest level a stored element may have. */
  static final int MAX_LEVEL = 180;

  private InMemoryStorage() {}

  /**
   * Checks {@code value}, to be stored at {@code level} (the number of segments of its path).
   *
   * @throws NotModelled when the server may refuse it
   */
  static void check(BsonValue value, int level, String path) {
    if (level > MAX_LEVEL) {
      throw new NotModelled("path " + path + " is deeper than " + MAX_LEVEL + " levels");
    }
    if (value.isDocument()) {
      for (Map.Entry<String, BsonValue> e : value.asDocument().entrySet()) {
        if (e.getKey().startsWith("$")) {
          throw new NotModelled("field name " + e.getKey() + " inside the value of " + path
              + " (refused for storage before MongoDB 5.0)");
        }
        check(e.getValue(), level + 1, path);
      }
    } else if (value.isArray()) {
      for (BsonValue element : value.asArray()) {
        check(element, level + 1, path);
      }
    }
  }

  /**
   * Checks what {@code op} stores.
   *
   * @throws NotModelled when the server may refuse it
   */
  static void check(Op op) {
    switch (op.operator()) {
      case "$unset", "$pull" -> { } // stores nothing new
      case "$set", "$min", "$max" -> check(op.operand(), op.segments().length,
          op.path());
      case "$push", "$addToSet" -> {
        int level = op.segments().length;
        check(org.bson.BsonNull.VALUE, level, op.path()); // the array
        BsonValue x = op.operand();
        BsonValue each = x.isDocument() ? x.asDocument().get("$each") : null;
        if (each != null && each.isArray()) {
          for (BsonValue v : each.asArray()) {
            check(v, level + 1, op.path());
          }
        } else {
          check(x, level + 1, op.path()); // other modifiers: not modelled
        }
      }
      default -> check(org.bson.BsonNull.VALUE, op.segments().length, op.path());
    }
  }

  /**
   * Checks a replacement's fields ({@code _id} and the version are the library's; a top-level
   * {@code $} name is refused before this).
   */
  static void checkReplacement(BsonDocument replacement) {
    for (Map.Entry<String, BsonValue> field : replacement.entrySet()) {
      check(field.getValue(), 1, field.getKey());
    }
  }
}
