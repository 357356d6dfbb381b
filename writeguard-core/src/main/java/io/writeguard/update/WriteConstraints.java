package io.writeguard.update;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * What the server checks on every write besides the update itself, as far as a collection
 * can tell: its indexes that can refuse a write, each as the group of paths it depends on.
 * Package-private; a group-commit round reads them before it merges a second writer.
 *
 * <p>Why it matters. Merging skips the states between the callers' updates, and an index
 * judges every state a lone update would have stored: a caller's {@code $set: {tag: "taken"}}
 * that a later caller's {@code $set: {tag: "free"}} overwrites would be refused alone
 * (duplicate key) but pass merged. So no two callers of a round may change paths of one such
 * index. Every index but two kinds can refuse a write: a unique one (duplicate keys), a
 * 2dsphere or 2d one (bad geometry), a hashed one (an array), a compound one (arrays in two
 * of its fields), a text one (a bad language), and a wildcard or partial one is counted too.
 * Only {@code _id}'s and a non-unique, non-partial ascending or descending index of one field
 * refuse nothing. (A collection validator, which a {@code MongoCollection} cannot list, judges
 * only the round's final document: see the group-commit docs.) Immutable and thread-safe.
 */
record WriteConstraints(List<List<String[]>> indexes, List<Boolean> byValue, boolean unknown) {
  /** Nothing checked: every merge the rules allow is exact. */
  static final WriteConstraints NONE = new WriteConstraints(List.of(), List.of(), false);

  /** Unknown (they could not be read): nothing is merged. */
  static final WriteConstraints UNKNOWN = new WriteConstraints(List.of(), List.of(), true);

  /** The whole document, for an index that may look at any field. */
  private static final String[] EVERYTHING = new String[0];

  /** The constraints described by the collection's {@code listIndexes} answers. */
  static WriteConstraints of(Iterable<BsonDocument> indexes) {
    List<List<String[]>> judging = new ArrayList<>();
    List<Boolean> byValue = new ArrayList<>();
    for (BsonDocument index : indexes) {
      BsonDocument key = index.getDocument("key", new BsonDocument());
      BsonDocument partial = index.getDocument("partialFilterExpression", null);
      boolean unique = index.getBoolean("unique", org.bson.BsonBoolean.FALSE).getValue();
      if (partial == null && (onlyId(key) || (!unique && plainSingleField(key)))) {
        continue; // refuses nothing an update of another field can make
      }
      List<String[]> paths = new ArrayList<>();
      for (Map.Entry<String, BsonValue> field : key.entrySet()) {
        String name = field.getKey();
        if (name.equals("_fts") || name.equals("_ftsx")) {
          textPaths(index, paths);
        } else if (name.equals("$**")) {
          paths.add(EVERYTHING);
        } else if (name.endsWith(".$**")) {
          paths.add(split(name.substring(0, name.length() - 4)));
        } else {
          paths.add(split(name));
        }
      }
      if (partial != null) {
        collectFields(partial, paths); // a change there moves the document in or out of it
      }
      judging.add(paths);
      byValue.add(unique || partial != null);
    }
    return new WriteConstraints(List.copyOf(judging), List.copyOf(byValue), false);
  }

  /**
   * One field (not a wildcard), ascending or descending (a number): it can refuse nothing
   * unless unique.
   */
  private static boolean plainSingleField(BsonDocument key) {
    return key.size() == 1 && !key.getFirstKey().endsWith("$**")
        && key.values().iterator().next().isNumber();
  }

  /** Only {@code _id}, which no merged update changes and a replacement keeps. */
  private static boolean onlyId(BsonDocument key) {
    return !key.isEmpty() && key.keySet().stream().allMatch(k -> k.equals("_id"));
  }

  /**
   * A text index: its weighted fields (any, for {@code $**}) and its language field, at the
   * top level and in every embedded document on the way to a weighted field (the server takes
   * the language of each document it descends into there, and refuses an unsupported one).
   */
  private static void textPaths(BsonDocument index, List<String[]> into) {
    BsonDocument weights = index.getDocument("weights", null);
    if (weights == null || weights.containsKey("$**")) {
      into.add(EVERYTHING);
      return;
    }
    String language = index.getString("language_override",
        new org.bson.BsonString("language")).getValue();
    into.add(split(language));
    for (String field : weights.keySet()) {
      String[] weighted = split(field);
      into.add(weighted);
      for (int depth = 1; depth < weighted.length; depth++) {
        String[] inside = java.util.Arrays.copyOf(weighted, depth + 1);
        inside[depth] = language;
        into.add(inside);
      }
    }
  }

  private static String[] split(String path) {
    return path.split("\\.", -1);
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
        into.add(split(e.getKey()));
      }
    }
  }

  /** The indexes (by position) that a change at {@code path} may affect. */
  List<Integer> indexesTouchedBy(String[] path) {
    List<Integer> touched = new ArrayList<>();
    for (int i = 0; i < indexes.size(); i++) {
      for (String[] indexed : indexes.get(i)) {
        if (overlap(indexed, path)) {
          touched.add(i);
          break;
        }
      }
    }
    return touched;
  }

  /**
   * Whether an index can refuse some number at {@code path} whatever else the document holds
   * (a unique one: a duplicate; a partial one: the number moves the document in or out of
   * it): true for the version field when a merge's skipped versions could be judged.
   */
  boolean judgesNumbersAt(String[] path) {
    for (int index : indexesTouchedBy(path)) {
      if (byValue.get(index)) {
        return true;
      }
    }
    return false;
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
