package io.writeguard.update;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * What the server checks on every write besides the update itself, as far as a collection
 * can tell: its unique indexes, each as the group of paths it depends on. Package-private; a
 * group-commit round reads them before it merges a second writer.
 *
 * <p>Why it matters. Merging skips the states between the callers' updates, and a unique index
 * or a validator judges every state a lone update would have stored: a caller's
 * {@code $set: {tag: "taken"}} that a later caller's {@code $set: {tag: "free"}} overwrites
 * would be refused alone (duplicate key) but pass merged. So no two callers of a round may
 * change paths of one unique index. (A collection validator, which a {@code MongoCollection}
 * cannot list, judges only the round's final document: see the group-commit docs.) Immutable
 * and thread-safe.
 */
record WriteConstraints(List<List<String[]>> uniqueIndexes, boolean unknown) {
  /** Nothing checked: every merge the rules allow is exact. */
  static final WriteConstraints NONE = new WriteConstraints(List.of(), false);

  /** Unknown (they could not be read): nothing is merged. */
  static final WriteConstraints UNKNOWN = new WriteConstraints(List.of(), true);

  /** The constraints described by the collection's {@code listIndexes} answers. */
  static WriteConstraints of(Iterable<BsonDocument> indexes) {
    List<List<String[]>> unique = new ArrayList<>();
    for (BsonDocument index : indexes) {
      if (!index.getBoolean("unique", org.bson.BsonBoolean.FALSE).getValue()) {
        continue;
      }
      List<String[]> paths = new ArrayList<>();
      for (String key : index.getDocument("key", new BsonDocument()).keySet()) {
        paths.add(key.split("\\.", -1));
      }
      if (paths.size() == 1 && paths.get(0).length == 1 && paths.get(0)[0].equals("_id")) {
        continue; // no update changes _id
      }
      BsonDocument partial = index.getDocument("partialFilterExpression", null);
      if (partial != null) {
        collectFields(partial, paths); // a change there moves the document in or out of it
      }
      unique.add(paths);
    }
    return new WriteConstraints(List.copyOf(unique), false);
  }

  private static void collectFields(BsonDocument filter, List<String[]> into) {
    for (Map.Entry<String, BsonValue> e : filter.entrySet()) {
      if (e.getKey().startsWith("$")) {
        if (e.getValue().isArray()) {
          for (BsonValue clause : e.getValue().asArray()) {
            if (clause.isDocument()) {
              collectFields(clause.asDocument(), into);
            }
          }
        }
      } else {
        into.add(e.getKey().split("\\.", -1));
      }
    }
  }

  /** The unique indexes (by position) that a change at {@code path} may affect. */
  List<Integer> indexesTouchedBy(String[] path) {
    List<Integer> touched = new ArrayList<>();
    for (int i = 0; i < uniqueIndexes.size(); i++) {
      for (String[] indexed : uniqueIndexes.get(i)) {
        if (overlap(indexed, path)) {
          touched.add(i);
          break;
        }
      }
    }
    return touched;
  }

  /**
   * Whether the paths may address the same values; array indexes are left out of both, so
   * {@code items.0.sku} overlaps an index on {@code items.sku}.
   */
  private static boolean overlap(String[] indexed, String[] changed) {
    String[] a = withoutIndexes(indexed);
    String[] b = withoutIndexes(changed);
    int n = Math.min(a.length, b.length);
    for (int i = 0; i < n; i++) {
      if (!a[i].equals(b[i])) {
        return false;
      }
    }
    return true;
  }

  private static String[] withoutIndexes(String[] path) {
    return java.util.Arrays.stream(path).filter(s -> !s.chars().allMatch(Character::isDigit)
        || s.isEmpty()).toArray(String[]::new);
  }
}
