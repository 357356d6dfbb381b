package io.writeguard.update;

import io.writeguard.update.InMemoryUpdate.Op;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonInt64;

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
 *   <li><b>Indexes see every step.</b> Merging skips the states between the callers'
 *       updates, so no two callers of a round change paths of one index that can refuse a
 *       write ({@link WriteConstraints}: unique, 2dsphere, hashed, compound, ...): a state one
 *       of them would have stored alone, which the index refuses, could otherwise hide behind
 *       the next caller's change. The indexes are those last read; one created since is
 *       looked for after the write ({@link #unsureUnder}).
 *   <li><b>Every value is storable.</b> What a caller stores must pass the server's storage
 *       validation on every supported version ({@link InMemoryStorage}: depth, {@code $}-names
 *       inside a value), or a later caller's change could hide its refusal.
 * </ol>
 *
 * Rules 1 to 3 are kept per path by {@link MergedPath}, rule 4 and the guards by
 * {@link MergeGuards}. The guards ({@link #guard()}) only narrow the write's filter: a stored
 * document that fails them is reported as a conflict and the round reads again. Not
 * thread-safe.
 */
final class MergedWrite {
  private final boolean replacing;
  private final BsonDocument read;
  private final Supplier<WriteConstraints> constraintsSource;
  private WriteConstraints constraints; // read when a second caller arrives
  private final List<List<String[]>> pathsByCaller = new ArrayList<>();
  /** How each path is written, in first-written order. */
  private final Map<String, MergedPath> entries = new LinkedHashMap<>();
  private final MergeGuards guards;
  private int callers;
  /** The first writer's update (or replacement), checked for storage once a second joins. */
  private List<Op> firstOps;
  private BsonDocument firstReplacement;
  /** A path every writer changes (the version), or null. */
  private String[] everyWriter;

  private MergedWrite(boolean replacing, BsonDocument read,
      Supplier<WriteConstraints> constraints) {
    this.replacing = replacing;
    this.read = read;
    this.constraintsSource = constraints;
    this.guards = new MergeGuards(read);
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
   * Names a path every writer changes besides its own operators: the version field, which each
   * lone update raises by one, so a unique or partial index covering it judges every version
   * the merge skips; under such an index nobody merges. Call before the first {@link #add}.
   */
  MergedWrite everyWriterChanges(String path) {
    this.everyWriter = path.split("\\.", -1);
    return this;
  }

  /**
   * Rule 6: no two callers change paths of one index that can refuse a write (merging would
   * skip the state between them, which the index may refuse); a first writer's replacement
   * changes them all. Unreadable constraints merge nobody.
   */
  private boolean indexesAllow(List<String[]> paths) {
    if (callers == 0) {
      return true; // alone, its update is sent as it is
    }
    if (constraints == null) {
      constraints = constraintsSource.get();
    }
    if (constraints.unknown()
        || (everyWriter != null && constraints.judgesNumbersAt(everyWriter))) {
      return false; // (every writer raises the version: a merge skips versions it judges)
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

  /**
   * The writers (by position, 0: the first) whose own state the merged write skipped and an
   * index of {@code now} may have judged differently from the round's final one: where two
   * writers change paths of one index, each from the first of them up to (not including) the
   * last. Empty when {@code now} holds no index the merge did not respect; every writer but
   * the last when it is unknown. Called after the write, with indexes read since it.
   */
  java.util.BitSet unsureUnder(WriteConstraints now) {
    java.util.BitSet unsure = new java.util.BitSet();
    int writers = pathsByCaller.size();
    if (now.unknown() || (everyWriter != null && now.judgesNumbersAt(everyWriter))) {
      unsure.set(0, writers - 1); // (each but the last skipped a version the index judges)
      return unsure;
    }
    for (int index = 0; index < now.indexes().size(); index++) {
      int first = -1;
      int last = -1;
      for (int w = 0; w < writers; w++) {
        if (touches(now, index, pathsByCaller.get(w))) {
          first = first < 0 ? w : first;
          last = w;
        }
      }
      if (last > first) {
        unsure.set(first, last);
      }
    }
    return unsure;
  }

  private static boolean touches(WriteConstraints constraints, int index, List<String[]> paths) {
    for (String[] path : paths) {
      if (constraints.indexesTouchedBy(path).contains(index)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Rule 7: what a caller stores passes the server's storage validation
   * ({@link InMemoryStorage}), or no later caller could hide its refusal. Checked only when a
   * second writer joins (the first's too, then), so a lone update pays nothing for it. A
   * failing first writer ends the round: sent alone, the server answers it.
   */
  private boolean storable(List<Op> ops, BsonDocument replacement) {
    try {
      if (callers == 1) {
        if (firstOps != null) {
          checkStorable(firstOps);
        } else if (firstReplacement != null) {
          InMemoryStorage.checkReplacement(firstReplacement);
        }
      }
      if (ops != null) {
        checkStorable(ops);
      } else {
        InMemoryStorage.checkReplacement(replacement);
      }
      return true;
    } catch (InMemoryUpdate.NotModelled e) {
      return false;
    }
  }

  private static void checkStorable(List<Op> ops) {
    for (Op op : ops) {
      InMemoryStorage.check(op);
    }
  }

  /** True when the round sends a replacement of its final document. */
  boolean replacing() {
    return replacing;
  }

  /**
   * Merges one more caller's update, or refuses and leaves this merge unchanged.
   *
   * @param update the caller's checked update (operators only)
   * @param after the document as the in-memory model computed it after this caller
   * @return false: not mergeable under the rules above (the caller belongs to the next round)
   */
  boolean add(BsonDocument update, BsonDocument after) {
    return add(InMemoryUpdate.parse(update), after);
  }

  /** {@link #add(BsonDocument, BsonDocument)} of an update already parsed by the model. */
  boolean add(List<Op> ops, BsonDocument after) {
    if (callers == 0) {
      firstOps = ops;
    } else if (!storable(ops, null)) {
      return false;
    }
    List<String[]> paths = new ArrayList<>(ops.size());
    for (Op op : ops) {
      paths.add(op.segments());
    }
    if (!indexesAllow(paths)) {
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
    if (!ok || !guards.keysInPlace(ops, caller, this::insideKnown, undo)) {
      undo.revert();
      return false;
    }
    callers++;
    pathsByCaller.add(paths);
    return true;
  }

  /**
   * A replacement after operator writers is not merged (see rule 5).
   *
   * @param replacement the document it stores, {@code _id} included
   */
  boolean addReplacement(BsonDocument replacement) {
    if (callers == 0) {
      firstReplacement = replacement;
    } else if (!storable(null, replacement)) {
      return false;
    }
    if (!replacing || !indexesAllow(List.<String[]>of(new String[0]))) {
      return false; // (an empty path overlaps every index: the replacement changes them all)
    }
    callers++;
    pathsByCaller.add(List.<String[]>of(new String[0]));
    return true;
  }

  private boolean merge(Op op, BsonDocument after, Undo undo) {
    MergedPath overlapping = null;
    for (MergedPath e : entries.values()) {
      if (MergePaths.isPrefix(e.segments, op.segments())) {
        overlapping = e; // an ancestor of the path, or the path itself
        break;
      }
      if (MergePaths.isPrefix(op.segments(), e.segments)) {
        return false; // the path holds another caller's path: split
      }
    }
    if (overlapping == null) {
      entries.put(op.path(), MergedPath.of(op));
      undo.added(op.path());
      return true;
    }
    MergedPath e = overlapping;
    undo.changing(e);
    if (e.known()) {
      return e.mergeKnown(op, after);
    }
    if (e.segments.length != op.segments().length) {
      return false; // inside a path another caller changed with an operator
    }
    return e.compose(op, read, guards, undo);
  }

  private boolean insideKnown(Op op) {
    for (MergedPath e : entries.values()) {
      if (e.known() && e.segments.length < op.segments().length
          && MergePaths.isPrefix(e.segments, op.segments())) {
        return true;
      }
    }
    return false;
  }

  /**
   * The update to send: the merged operators plus {@code $inc} of the version by the number
   * of writers. {@code last} is the document as the model left it after the last caller.
   */
  BsonDocument update(String versionField, int writers, BsonDocument last) {
    BsonDocument update = new BsonDocument();
    for (MergedPath e : entries.values()) {
      e.addTo(update, last);
    }
    update.computeIfAbsent("$inc", o -> new BsonDocument()).asDocument()
        .put(versionField, new BsonInt64(writers));
    return update;
  }

  /** The conditions the stored document must meet besides {@code _id} and version, or null. */
  BsonDocument guard() {
    return guards.filter();
  }

  /**
   * What one {@link #add} changed, to put back if the caller is refused: entries added, the
   * state of entries changed, guard conditions and created keys added. Small, where copying
   * the whole merge for every caller was not.
   */
  final class Undo {
    private List<String> addedEntries;
    private List<MergedPath> changedEntries; // copies of their state before the change
    private List<String[]> addedConditions; // {path, operator}
    private List<String[]> createdKeys; // {parent, key}

    void added(String path) {
      addedEntries = push(addedEntries, path);
    }

    void changing(MergedPath e) {
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
          MergedPath before = changedEntries.get(i);
          entries.get(before.path).restore(before);
        }
      }
      if (addedConditions != null) {
        for (String[] c : addedConditions) {
          guards.removeCondition(c[0], c[1]);
        }
      }
      if (createdKeys != null) {
        for (String[] k : createdKeys) {
          guards.removeCreated(k[0], k[1]);
        }
      }
    }

    private <T> List<T> push(List<T> list, T item) {
      List<T> l = list == null ? new ArrayList<>(2) : list;
      l.add(item);
      return l;
    }
  }
}
