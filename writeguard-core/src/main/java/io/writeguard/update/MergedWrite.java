package io.writeguard.update;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The one operator update that a group-commit round of several writers sends: the callers'
 * changes merged, never the document. Package-private; built by {@link BatchUpdate}, one per
 * round, on the leader's thread only.
 *
 * <p>Why it is built this way. The round's write is filtered on the version it read, but a
 * writer that does not use WriteGuard may change other fields (or the same counter, by
 * {@code $inc}) without raising the version. A replacement of the final document would erase
 * such writes; the merged update below leaves every field exactly as the callers' updates,
 * sent one after another, would leave it, <em>whatever the stored document holds when it
 * arrives</em>. So every rule is about the stored value at write time, which may differ from
 * the value read. A caller whose changes cannot be merged under these rules is not merged: it
 * becomes the first writer of the next round (where, alone, its update is sent as it is).
 *
 * <p>The rules, per path a caller writes ({@link #add}):
 *
 * <ol>
 *   <li><b>A path set by a caller is known.</b> Once a caller {@code $set}s (or
 *       {@code $unset}s) a path, its value no longer depends on the stored document: every
 *       later change to it or inside it is computed in memory, and the merged update carries
 *       one {@code $set} of the final value (or the {@code $unset}). A path removed by
 *       {@code $unset} and then created again is not merged (MongoDB appends a re-created field
 *       at the end; a {@code $set} would keep its place).
 *   <li><b>Operators that compose are merged.</b> {@code $inc} amounts are added when all are
 *       int32/int64 of one sign and their sum fits (int32 when all are); the write then also
 *       requires the stored value to be neither a double nor a Decimal128 (rounding would make
 *       {@code (x + a) + b} differ from {@code x + (a + b)}), and a miss of that guard is a
 *       conflict. {@code $push} and {@code $addToSet} values are concatenated into one
 *       {@code $each} (the server skips duplicates inside one {@code $addToSet} list, as it
 *       would across updates). {@code $min}/{@code $max} keep the smallest/largest operand,
 *       compared by the in-memory model (which refuses what it cannot compare exactly).
 *   <li><b>Everything else is split.</b> Two different operators on one path, {@code $mul},
 *       {@code $pull} twice, a change to a path inside one another caller wrote with an
 *       operator, a path that is an ancestor of another caller's path: the caller waits for the
 *       next round, where the server computes it.
 *   <li><b>New fields keep their order.</b> MongoDB appends a field an update creates;
 *       one update creating several in one embedded document orders them its own way (by name
 *       since 5.0). So where callers create keys in one embedded document, at most one of those
 *       keys may be missing from the document read; the others are required to exist by the
 *       write's filter ({@code $exists: true}), so they are updated in place.
 *   <li><b>Replacements.</b> A round whose first writer replaces the document sends a
 *       replacement: the final document, every later change computed in memory on the known
 *       replacement. A replacement after an operator writer is not merged.
 *   <li><b>Unique indexes see every step.</b> Merging skips the states between the callers'
 *       updates, so no two callers of a round change paths of one unique index
 *       ({@link WriteConstraints}): a state one of them would have stored alone, which the
 *       index refuses, could otherwise hide behind the next caller's change.
 * </ol>
 *
 * The guards ({@link #guard()}) only narrow the write's filter: a stored document that fails
 * them is reported as a conflict and the round reads again. Not thread-safe.
 */
final class MergedWrite {
  private final boolean replacing;
  private final BsonDocument read;
  private final Supplier<WriteConstraints> constraintsSource;
  private WriteConstraints constraints; // read when a second caller arrives
  private final List<List<String[]>> pathsByCaller = new ArrayList<>();
  private final Map<String, Entry> entries = new LinkedHashMap<>();
  private final Map<String, BsonDocument> guards = new LinkedHashMap<>();
  /** Per embedded document (by path; "" is the root): the keys the callers write there. */
  private final Map<String, Set<String>> created = new HashMap<>();
  private int callers;

  private MergedWrite(boolean replacing, BsonDocument read,
      Supplier<WriteConstraints> constraints) {
    this.replacing = replacing;
    this.read = read;
    this.constraintsSource = constraints;
  }

  /** A merge whose first writer sent operators, over the document as the round read it. */
  static MergedWrite ofOperators(BsonDocument read, Supplier<WriteConstraints> constraints) {
    return new MergedWrite(false, read, constraints);
  }

  /** A merge whose first writer sent operators, on a collection without unique indexes. */
  static MergedWrite ofOperators(BsonDocument read) {
    return ofOperators(read, () -> WriteConstraints.NONE);
  }

  /** A merge whose first writer replaced the document. */
  static MergedWrite ofReplacement(Supplier<WriteConstraints> constraints) {
    return new MergedWrite(true, null, constraints);
  }

  /** A merge whose first writer replaced the document, without unique indexes. */
  static MergedWrite ofReplacement() {
    return ofReplacement(() -> WriteConstraints.NONE);
  }

  /**
   * Rule 6: no two callers change paths of one unique index (merging would skip the state
   * between them, which the index may refuse); a first writer's replacement changes them all.
   * Unreadable constraints merge nobody.
   */
  private boolean uniqueIndexesAllow(List<String[]> paths) {
    if (callers == 0) {
      return true; // alone, its update is sent as it is
    }
    if (constraints == null) {
      constraints = constraintsSource.get();
    }
    if (constraints.unknown()) {
      return false;
    }
    for (String[] path : paths) {
      for (int index : constraints.indexesTouchedBy(path)) {
        if (replacing) {
          return false;
        }
        for (List<String[]> earlier : pathsByCaller) {
          for (String[] other : earlier) {
            if (constraints.indexesTouchedBy(other).contains(index)) {
              return false;
            }
          }
        }
      }
    }
    return true;
  }

  /** True when the round sends a replacement of its final document. */
  boolean replacing() {
    return replacing;
  }

  /** How one path is written: kept in first-written order. */
  private static final class Entry {
    final String path;
    final String[] segments;
    String operator; // "$set" / "$unset" once known; otherwise the composed operator
    BsonValue operand; // the single operand, or the chosen one ($min/$max)
    List<BsonValue> each; // $push / $addToSet values, in order
    int count; // operations merged into this entry
    int eachSize; // in an undo's copy: the length of each when it was taken
    long incSum;
    boolean incAllInt32;
    boolean removed; // $unset of exactly this path, not re-created since

    Entry(String path, String[] segments) {
      this.path = path;
      this.segments = segments;
    }

    boolean known() {
      return operator.equals("$set") || operator.equals("$unset");
    }

    /** Its state, for an undo: the values list is shared, its length kept. */
    Entry copy() {
      Entry c = new Entry(path, segments);
      c.operator = operator;
      c.operand = operand;
      c.each = each;
      c.eachSize = each == null ? 0 : each.size();
      c.count = count;
      c.incSum = incSum;
      c.incAllInt32 = incAllInt32;
      c.removed = removed;
      return c;
    }

    /** Back to a state {@link #copy} took (values added since are dropped). */
    void restore(Entry from) {
      operator = from.operator;
      operand = from.operand;
      each = from.each;
      if (each != null) {
        each.subList(from.eachSize, each.size()).clear();
      }
      count = from.count;
      incSum = from.incSum;
      incAllInt32 = from.incAllInt32;
      removed = from.removed;
    }
  }

  /** One operator on one path of a caller's update. */
  private record Op(String operator, String path, String[] segments, BsonValue operand) {}

  /**
   * Merges one more caller's update, or refuses and leaves this merge unchanged.
   *
   * @param update the caller's checked update (operators only)
   * @param after the document as the in-memory model computed it after this caller
   * @return false: not mergeable under the rules above (the caller belongs to the next round)
   */
  boolean add(BsonDocument update, BsonDocument after) {
    List<Op> ops = ops(update);
    List<String[]> paths = ops.stream().map(Op::segments).toList();
    if (!uniqueIndexesAllow(paths)) {
      return false;
    }
    if (replacing) {
      callers++;
      pathsByCaller.add(paths);
      return true; // every later change is computed in memory on the known replacement
    }
    Undo undo = new Undo();
    int caller = callers;
    boolean ok = true;
    for (Op op : ops) {
      if (!merge(op, after, undo)) {
        ok = false;
        break;
      }
    }
    if (!ok || !keysInPlace(ops, caller, undo)) {
      undo.revert();
      return false;
    }
    callers++;
    pathsByCaller.add(paths);
    return true;
  }

  /** A replacement after operator writers is not merged (see rule 5). */
  boolean addReplacement() {
    if (!replacing || !uniqueIndexesAllow(List.<String[]>of(new String[0]))) {
      return false; // (an empty path overlaps every index: the replacement changes them all)
    }
    callers++;
    pathsByCaller.add(List.<String[]>of(new String[0]));
    return true;
  }

  private static List<Op> ops(BsonDocument update) {
    List<Op> ops = new ArrayList<>();
    for (Map.Entry<String, BsonValue> operator : update.entrySet()) {
      for (Map.Entry<String, BsonValue> field : operator.getValue().asDocument().entrySet()) {
        ops.add(new Op(operator.getKey(), field.getKey(), field.getKey().split("\\.", -1),
            field.getValue()));
      }
    }
    return ops;
  }

  private boolean merge(Op op, BsonDocument after, Undo undo) {
    Entry overlapping = null;
    for (Entry e : entries.values()) {
      if (isPrefix(e.segments, op.segments)) {
        overlapping = e; // an ancestor of the path, or the path itself
        break;
      }
      if (isPrefix(op.segments, e.segments)) {
        return false; // the path holds another caller's path: split
      }
    }
    if (overlapping == null) {
      Entry e = new Entry(op.path, op.segments);
      start(e, op);
      entries.put(op.path, e);
      undo.added(op.path);
      return true;
    }
    Entry e = overlapping;
    undo.changing(e);
    if (e.known()) {
      boolean same = e.segments.length == op.segments.length;
      if (e.removed && !(op.operator.equals("$unset") || op.operator.equals("$pull"))) {
        return false; // re-creating a removed field moves it to the end
      }
      if (same && op.operator.equals("$unset") && e.operator.equals("$set")) {
        return false; // the $set may have created parents or padded an array: left to the server
      }
      if (same) {
        e.operator = op.operator.equals("$unset") ? "$unset" : "$set";
        e.removed = op.operator.equals("$unset");
      } else if (e.operator.equals("$unset")) {
        return true; // inside a removed field: $unset/$pull of nothing
      }
      if (e.operator.equals("$set")) {
        return valueAt(after, e.segments) != null; // the final value is taken from the model
      }
      return true;
    }
    if (e.segments.length != op.segments.length) {
      return false; // inside a path another caller changed with an operator
    }
    return compose(e, op, undo);
  }

  private void start(Entry e, Op op) {
    e.operator = op.operator;
    e.operand = op.operand;
    e.count = 1;
    if (op.operator.equals("$unset")) {
      e.removed = true;
    } else if (op.operator.equals("$inc")) {
      e.incAllInt32 = op.operand.isInt32();
      e.incSum = op.operand.isInt32() || op.operand.isInt64() ? op.operand.asNumber().longValue()
          : 0;
    } else if (op.operator.equals("$push") || op.operator.equals("$addToSet")) {
      e.each = new ArrayList<>(values(op.operand));
    }
  }

  private boolean compose(Entry e, Op op, Undo undo) {
    if (!e.operator.equals(op.operator)) {
      return false;
    }
    e.count++;
    switch (op.operator) {
      case "$inc":
        return addAmount(e, op.operand, undo);
      case "$push":
      case "$addToSet":
        e.each.addAll(values(op.operand));
        return true;
      case "$min":
      case "$max":
        return fold(e, op);
      default:
        return false; // $mul, $pull: left to the server, one per round
    }
  }

  /**
   * A second {@code $inc} amount: added only if the value read there is an integer or missing,
   * reached through embedded documents only, and the write requires it still is.
   */
  private boolean addAmount(Entry e, BsonValue amount, Undo undo) {
    BsonValue first = e.operand;
    if (!isInteger(first) || !isInteger(amount)) {
      return false;
    }
    if (!throughDocuments(read, e.segments)) {
      return false;
    }
    BsonValue stored = valueAt(read, e.segments);
    if (stored != null && !isInteger(stored)) {
      return false;
    }
    long a = e.incSum;
    long b = amount.asNumber().longValue();
    if (a != 0 && b != 0 && (a > 0) != (b > 0)) {
      return false; // of one sign, every partial sum lies between the first and the last
    }
    long sum;
    try {
      sum = Math.addExact(a, b);
    } catch (ArithmeticException overflow) {
      return false;
    }
    boolean allInt32 = e.incAllInt32 && amount.isInt32();
    if (allInt32 && sum != (int) sum) {
      return false; // an int32 sum that needs int64 would change the stored type
    }
    e.incSum = sum;
    e.incAllInt32 = allInt32;
    guard(e.path, "$not", new BsonDocument("$type",
        new BsonArray(List.of(new BsonString("double"), new BsonString("decimal")))), undo);
    return true;
  }

  /** {@code $min}/{@code $max} of two operands: the one the model says wins, in order. */
  private static boolean fold(Entry e, Op op) {
    BsonDocument probe = new BsonDocument("v", e.operand);
    BsonDocument result;
    try {
      result = InMemoryUpdate.apply(probe,
          new BsonDocument(op.operator, new BsonDocument("v", op.operand)));
    } catch (InMemoryUpdate.NotModelled notModelled) {
      return false;
    }
    e.operand = result.get("v"); // the later operand only if it strictly wins
    return true;
  }

  /**
   * Rule 4: where keys of several callers are created in one embedded document, at most one
   * may be missing from the document read; the others must still exist when the write
   * arrives, which its filter requires.
   */
  private boolean keysInPlace(List<Op> ops, int caller, Undo undo) {
    Set<String> grown = new LinkedHashSet<>(); // the documents this caller adds a key to
    for (Op op : ops) {
      if (op.operator.equals("$unset") || op.operator.equals("$pull") || insideKnown(op)) {
        continue; // creates nothing, or only inside a value the merged write sets whole
      }
      for (int depth = 1; depth <= op.segments.length; depth++) {
        String parent = join(op.segments, depth - 1);
        String key = op.segments[depth - 1];
        Set<String> keys = created.computeIfAbsent(parent, p -> new LinkedHashSet<>());
        if (keys.add(key)) {
          undo.created(parent, key);
          grown.add(parent);
        }
      }
    }
    if (caller == 0) {
      return true; // alone, its update is sent as it is
    }
    // The second caller checks every document (the first's were never checked); a later one
    // only those it adds a key to: the others' keys, and so their guards, are as last checked.
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
        if (throughDocuments(read, segments) && valueAt(read, segments) != null) {
          guard(path, "$exists", org.bson.BsonBoolean.TRUE, undo);
        } else if (++missing > 1) {
          return false;
        }
      }
    }
    return true;
  }

  private boolean insideKnown(Op op) {
    for (Entry e : entries.values()) {
      if (e.known() && e.segments.length < op.segments.length
          && isPrefix(e.segments, op.segments)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Adds a condition on {@code path}, and requires each of its ancestors not to be an array:
   * a query path runs through arrays (it would match {@code p.0.b} in {@code p[0]["0"].b}),
   * an update path does not, so the condition must hold where the update writes.
   */
  private void guard(String path, String operator, BsonValue condition, Undo undo) {
    condition(path, operator, condition, undo);
    int dot = path.lastIndexOf('.');
    while (dot > 0) {
      String ancestor = path.substring(0, dot);
      condition(ancestor, "$not", new BsonDocument("$type", new BsonString("array")), undo);
      dot = ancestor.lastIndexOf('.');
    }
  }

  private void condition(String path, String operator, BsonValue condition, Undo undo) {
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

  /**
   * The update to send: the merged operators plus {@code $inc} of the version by the number
   * of writers. {@code last} is the document as the model left it after the last caller.
   */
  BsonDocument update(String versionField, int writers, BsonDocument last) {
    BsonDocument update = new BsonDocument();
    for (Entry e : entries.values()) {
      String operator = e.operator;
      BsonValue operand;
      if (operator.equals("$set")) {
        operand = valueAt(last, e.segments);
      } else if (operator.equals("$unset")) {
        operand = new BsonString("");
      } else if (operator.equals("$inc")) {
        operand = e.count == 1 ? e.operand
            : e.incAllInt32 ? new BsonInt32((int) e.incSum) : new BsonInt64(e.incSum);
      } else if (e.each != null && e.count > 1) {
        operand = new BsonDocument("$each", new BsonArray(new ArrayList<>(e.each)));
      } else {
        operand = e.operand;
      }
      update.computeIfAbsent(operator, o -> new BsonDocument()).asDocument().put(e.path, operand);
    }
    update.computeIfAbsent("$inc", o -> new BsonDocument()).asDocument()
        .put(versionField, new BsonInt64(writers));
    return update;
  }

  /** The conditions the stored document must meet besides {@code _id} and version, or null. */
  BsonDocument guard() {
    if (guards.isEmpty()) {
      return null;
    }
    BsonDocument guard = new BsonDocument();
    guards.forEach((path, condition) -> guard.put(path, condition.clone()));
    return guard;
  }

  /**
   * What one {@link #add} changed, to put back if the caller is refused: entries added, the
   * state of entries changed, guard conditions and created keys added. Small, where copying
   * the whole merge for every caller was not.
   */
  private final class Undo {
    private List<String> addedEntries;
    private List<Entry> changedEntries; // copies of their state before the change
    private List<String[]> addedConditions; // {path, operator}
    private List<String[]> createdKeys; // {parent, key}

    void added(String path) {
      addedEntries = push(addedEntries, path);
    }

    void changing(Entry e) {
      changedEntries = push(changedEntries, e.copy());
    }

    void guarded(String path, String operator) {
      addedConditions = push(addedConditions, new String[] {path, operator});
    }

    void created(String parent, String key) {
      createdKeys = push(createdKeys, new String[] {parent, key});
    }

    void revert() {
      if (addedEntries != null) {
        addedEntries.forEach(entries::remove);
      }
      if (changedEntries != null) { // latest first, so the oldest state wins
        for (int i = changedEntries.size() - 1; i >= 0; i--) {
          Entry before = changedEntries.get(i);
          entries.get(before.path).restore(before);
        }
      }
      if (addedConditions != null) {
        for (String[] c : addedConditions) {
          BsonDocument conditions = guards.get(c[0]);
          conditions.remove(c[1]);
          if (conditions.isEmpty()) {
            guards.remove(c[0]);
          }
        }
      }
      if (createdKeys != null) {
        for (String[] k : createdKeys) {
          Set<String> keys = created.get(k[0]);
          keys.remove(k[1]);
          if (keys.isEmpty()) {
            created.remove(k[0]);
          }
        }
      }
    }

    private <T> List<T> push(List<T> list, T item) {
      List<T> l = list == null ? new ArrayList<>(2) : list;
      l.add(item);
      return l;
    }
  }

  // ---- helpers ----

  private static List<BsonValue> values(BsonValue operand) {
    if (operand.isDocument() && operand.asDocument().containsKey("$each")) {
      return operand.asDocument().getArray("$each").getValues();
    }
    return List.of(operand);
  }

  private static boolean isInteger(BsonValue v) {
    return v.isInt32() || v.isInt64();
  }

  private static boolean isPrefix(String[] prefix, String[] path) {
    if (prefix.length > path.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (!prefix[i].equals(path[i])) {
        return false;
      }
    }
    return true;
  }

  private static String join(String[] segments, int n) {
    return String.join(".", java.util.Arrays.asList(segments).subList(0, n));
  }

  /** True when no value on the way to the path (excluding the path itself) is an array. */
  private static boolean throughDocuments(BsonDocument doc, String[] segments) {
    BsonValue at = doc;
    for (int i = 0; i < segments.length - 1; i++) {
      if (!at.isDocument()) {
        return false;
      }
      at = at.asDocument().get(segments[i]);
      if (at == null) {
        return true; // missing parents are created as embedded documents
      }
    }
    return at.isDocument();
  }

  /** The value at the path, through documents and canonical array indexes; null if none. */
  static BsonValue valueAt(BsonDocument doc, String[] segments) {
    BsonValue at = doc;
    for (String segment : segments) {
      if (at.isDocument()) {
        at = at.asDocument().get(segment);
      } else if (at.isArray()) {
        int i = InMemoryPaths.index(segment);
        at = i >= 0 && i < at.asArray().size() ? at.asArray().get(i) : null;
      } else {
        return null;
      }
      if (at == null) {
        return null;
      }
    }
    return at;
  }
}
