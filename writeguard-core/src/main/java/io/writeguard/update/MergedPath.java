package io.writeguard.update;

import io.writeguard.update.InMemoryUpdate.Op;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * How one path is written by a merged write: rules 1 to 3 of {@link MergedWrite}, per operator
 * family. A path {@code $set} or {@code $unset} is known, and later changes at or inside it are
 * computed in memory; otherwise the callers' operators on it compose or are refused: {@code $inc}
 * amounts are summed (guarded by {@link MergeGuards}), {@code $push} and {@code $addToSet}
 * values are concatenated, {@code $min}/{@code $max} keep the winning operand. Confined to the
 * round's thread, as its {@link MergedWrite}.
 */
final class MergedPath {
  final String path;
  final String[] segments;
  private String operator; // "$set" / "$unset" once known; otherwise the composed operator
  private BsonValue operand; // the single operand, or the chosen one ($min/$max)
  private List<BsonValue> each; // $push / $addToSet values, in order
  private int count; // operations merged into this path
  private int eachSize; // in an undo's copy: the length of each when it was taken
  private long incSum;
  private boolean incAllInt32;
  private boolean removed; // $unset of exactly this path, not re-created since

  private MergedPath(String path, String[] segments) {
    this.path = path;
    this.segments = segments;
  }

  /** The path as the first operator on it writes it. */
  static MergedPath of(Op op) {
    MergedPath e = new MergedPath(op.path(), op.segments());
    e.operator = op.operator();
    e.operand = op.operand();
    e.count = 1;
    if (op.operator().equals("$unset")) {
      e.removed = true;
    } else if (op.operator().equals("$inc")) {
      e.incAllInt32 = op.operand().isInt32();
      e.incSum = op.operand().isInt32() || op.operand().isInt64()
          ? op.operand().asNumber().longValue() : 0;
    } else if (op.operator().equals("$push") || op.operator().equals("$addToSet")) {
      e.each = new ArrayList<>(values(op.operand()));
    }
    return e;
  }

  /** Set or removed by a caller: its value no longer depends on the stored document. */
  boolean known() {
    return operator.equals("$set") || operator.equals("$unset");
  }

  /**
   * Rule 1: {@code op}, at or inside this known path, is computed in memory.
   *
   * @param after the document as the model computed it after {@code op}'s caller
   * @return false: not merged
   */
  boolean mergeKnown(Op op, BsonDocument after) {
    boolean same = segments.length == op.segments().length;
    if (removed && !(op.operator().equals("$unset") || op.operator().equals("$pull"))) {
      return false; // re-creating a removed field moves it to the end
    }
    if (same && op.operator().equals("$unset") && operator.equals("$set")) {
      return false; // the $set may have created parents or padded an array: left to the server
    }
    if (same) {
      operator = op.operator().equals("$unset") ? "$unset" : "$set";
      removed = op.operator().equals("$unset");
    } else if (operator.equals("$unset")) {
      return true; // inside a removed field: $unset/$pull of nothing
    }
    if (operator.equals("$set")) {
      return MergePaths.valueAt(after, segments) != null; // the final value is taken from the model
    }
    return true;
  }

  /**
   * Rules 2 and 3: one more operator on exactly this path, composed with the earlier ones.
   *
   * @param read the document as the round read it
   * @return false: not merged (left to the server, in the next round)
   */
  boolean compose(Op op, BsonDocument read, MergeGuards guards, MergedWrite.Undo undo) {
    if (!operator.equals(op.operator())) {
      return false;
    }
    count++;
    switch (op.operator()) {
      case "$inc":
        return addAmount(op.operand(), read, guards, undo);
      case "$push":
      case "$addToSet":
        each.addAll(values(op.operand()));
        return true;
      case "$min":
      case "$max":
        return fold(op);
      default:
        return false; // $mul, $pull: left to the server, one per round
    }
  }

  /**
   * A second {@code $inc} amount: added only if the value read there is an integer or missing,
   * reached through embedded documents only, and the write requires it still is.
   */
  private boolean addAmount(BsonValue amount, BsonDocument read, MergeGuards guards,
      MergedWrite.Undo undo) {
    BsonValue first = operand;
    if (!isInteger(first) || !isInteger(amount)) {
      return false;
    }
    if (!MergePaths.throughDocuments(read, segments)) {
      return false;
    }
    BsonValue stored = MergePaths.valueAt(read, segments);
    if (stored != null && !isInteger(stored)) {
      return false;
    }
    long a = incSum;
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
    boolean allInt32 = incAllInt32 && amount.isInt32();
    if (allInt32 && sum != (int) sum) {
      return false; // an int32 sum that needs int64 would change the stored type
    }
    incSum = sum;
    incAllInt32 = allInt32;
    guards.guard(path, "$not", new BsonDocument("$type",
        new BsonArray(List.of(new BsonString("double"), new BsonString("decimal")))), undo);
    return true;
  }

  /** {@code $min}/{@code $max} of two operands: the one the model says wins, in order. */
  private boolean fold(Op op) {
    BsonDocument probe = new BsonDocument("v", operand);
    BsonDocument result;
    try {
      result = InMemoryUpdate.apply(probe,
          new BsonDocument(op.operator(), new BsonDocument("v", op.operand())));
    } catch (InMemoryUpdate.NotModelled notModelled) {
      return false;
    }
    operand = result.get("v"); // the later operand only if it strictly wins
    return true;
  }

  /**
   * Puts this path's operator into {@code update}. {@code last} is the document as the model
   * left it after the last caller (a known path's final value).
   */
  void addTo(BsonDocument update, BsonDocument last) {
    BsonValue value;
    if (operator.equals("$set")) {
      value = MergePaths.valueAt(last, segments);
    } else if (operator.equals("$unset")) {
      value = new BsonString("");
    } else if (operator.equals("$inc")) {
      value = count == 1 ? operand
          : incAllInt32 ? new BsonInt32((int) incSum) : new BsonInt64(incSum);
    } else if (each != null && count > 1) {
      value = new BsonDocument("$each", new BsonArray(new ArrayList<>(each)));
    } else {
      value = operand;
    }
    update.computeIfAbsent(operator, o -> new BsonDocument()).asDocument().put(path, value);
  }

  /** Its state, for an undo: the values list is shared, its length kept. */
  MergedPath copy() {
    MergedPath c = new MergedPath(path, segments);
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
  void restore(MergedPath from) {
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

  private static List<BsonValue> values(BsonValue operand) {
    if (operand.isDocument() && operand.asDocument().containsKey("$each")) {
      return operand.asDocument().getArray("$each").getValues();
    }
    return List.of(operand);
  }

  private static boolean isInteger(BsonValue v) {
    return v.isInt32() || v.isInt64();
  }
}
