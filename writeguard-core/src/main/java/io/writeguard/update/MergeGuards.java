package io.writeguard.update;

import io.writeguard.update.InMemoryUpdate.Op;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The conditions a merged write adds to its filter besides {@code _id} and version, and rule 4
 * of {@link MergedWrite} (new fields keep their order), which needs most of them. They only
 * narrow the filter: a stored document that fails them is reported as a conflict and the round
 * reads again. Confined to the round's thread, as its {@link MergedWrite}.
 */
final class MergeGuards {
  private final BsonDocument read;
  private final Map<String, BsonDocument> guards = new LinkedHashMap<>();
  /** Per embedded document (by path; "" is the root): the keys the callers write there. */
  private final Map<String, Set<String>> created = new HashMap<>();

  /** {@code read}: the document as the round read it. */
  MergeGuards(BsonDocument read) {
    this.read = read;
  }

  /**
   * Rule 4: where keys of several callers are created in one embedded document, at most one
   * may be missing from the document read; the others must still exist when the write
   * arrives, which its filter requires.
   *
   * @param ops the operators of caller number {@code caller} (0: the first)
   * @param insideKnown whether an operator writes inside a value the merged write sets whole
   */
  boolean keysInPlace(List<Op> ops, int caller, Predicate<Op> insideKnown,
      MergedWrite.Undo undo) {
    Set<String> grown = null; // the documents this caller adds a key to
    for (Op op : ops) {
      if (op.operator().equals("$unset") || op.operator().equals("$pull")
          || insideKnown.test(op)) {
        continue; // creates nothing, or only inside a value the merged write sets whole
      }
      for (int depth = 1; depth <= op.segments().length; depth++) {
        String parent = join(op.segments(), depth - 1);
        String key = op.segments()[depth - 1];
        Set<String> keys = created.computeIfAbsent(parent, p -> new LinkedHashSet<>());
        if (keys.add(key)) {
          undo.created(parent, key);
          if (grown == null) {
            grown = new LinkedHashSet<>();
          }
          grown.add(parent);
        }
      }
    }
    if (caller == 0) {
      return true; // alone, its update is sent as it is
    }
    // The second caller checks every document (the first's were never checked); a later one
    // only those it adds a key to: the others' keys, and so their guards, are as last checked.
    if (caller > 1 && grown == null) {
      return true; // no key of its own: the others' guards are as last checked
    }
    for (String parent : caller == 1 ? created.keySet() : grown) {
      Set<String> keys = created.get(parent);
      if (keys.size() < 2) {
        continue; // one key: created (or not) as a lone update would
      }
      // Keys of one caller too: merged, its operators are regrouped with the others', and a
      // server that creates fields in the update's order would create them in another order.
      int missing = 0;
      for (String key : keys) {
        String path = parent.isEmpty() ? key : parent + "." + key;
        String[] segments = path.split("\\.", -1);
        if (MergePaths.throughDocuments(read, segments)
            && MergePaths.valueAt(read, segments) != null) {
          guard(path, "$exists", BsonBoolean.TRUE, undo);
        } else if (++missing > 1) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Adds a condition on {@code path}, and requires each of its ancestors not to be an array:
   * a query path runs through arrays (it would match {@code p.0.b} in {@code p[0]["0"].b}),
   * an update path does not, so the condition must hold where the update writes.
   */
  void guard(String path, String operator, BsonValue condition, MergedWrite.Undo undo) {
    condition(path, operator, condition, undo);
    int dot = path.lastIndexOf('.');
    while (dot > 0) {
      String ancestor = path.substring(0, dot);
      condition(ancestor, "$not", new BsonDocument("$type", new BsonString("array")), undo);
      dot = ancestor.lastIndexOf('.');
    }
  }

  private void condition(String path, String operator, BsonValue condition,
      MergedWrite.Undo undo) {
    BsonDocument conditions = guards.get(path);
    if (conditions == null) {
      conditions = new BsonDocument();
      guards.put(path, conditions);
    }
    if (!conditions.containsKey(operator)) {
      undo.guarded(path, operator);
    }
    conditions.put(operator, condition);
  }

  /** The conditions the stored document must meet besides {@code _id} and version, or null. */
  BsonDocument filter() {
    if (guards.isEmpty()) {
      return null;
    }
    BsonDocument guard = new BsonDocument();
    guards.forEach((path, condition) -> guard.put(path, condition.clone()));
    return guard;
  }

  /** Undoes a condition {@link #guard} added. */
  void removeCondition(String path, String operator) {
    BsonDocument conditions = guards.get(path);
    conditions.remove(operator);
    if (conditions.isEmpty()) {
      guards.remove(path);
    }
  }

  /** Undoes a key {@link #keysInPlace} recorded as created. */
  void removeCreated(String parent, String key) {
    Set<String> keys = created.get(parent);
    keys.remove(key);
    if (keys.isEmpty()) {
      created.remove(parent);
    }
  }

  private static String join(String[] segments, int n) {
    if (n <= 1) {
      return n == 0 ? "" : segments[0]; // the usual top-level paths, without a joiner
    }
    return String.join(".", java.util.Arrays.asList(segments).subList(0, n));
  }
}
