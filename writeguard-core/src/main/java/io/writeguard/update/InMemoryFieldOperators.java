package io.writeguard.update;

import io.writeguard.update.InMemoryUpdate.NotModelled;
import io.writeguard.update.InMemoryUpdate.Op;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonValue;

/**
 * The field operators of {@link InMemoryUpdate}: {@code $set}, {@code $inc}, {@code $mul},
 * {@code $min}, {@code $max} ({@code $unset} is a removal, in {@link InMemoryPaths}). Numbers
 * are int32, int64 and double only, with the server's type rules: an int32 result that
 * overflows becomes int64, an int64 overflow (a server error) is refused. Each method takes the
 * value now at the path (null: missing) and returns the new one, or null for no change.
 * Stateless and thread-safe.
 */
final class InMemoryFieldOperators {
  private InMemoryFieldOperators() {}

  /** {@code $set}: a copy of the operand. */
  static BsonValue set(Op op) {
    return InMemoryPaths.copy(op.operand());
  }

  /** {@code $inc} ({@code add}) or {@code $mul} of the value {@code now} by {@code x}. */
  static BsonValue arithmetic(Op op, BsonValue now, BsonValue x, boolean add) {
    if (!InMemoryOrder.isPlainNumber(x)) {
      throw new NotModelled(op.operator() + " by a " + x.getBsonType());
    }
    if (now == null) {
      // The server (arithmetic_node.cpp, setValueForNewElement) stores an $inc's operand as it
      // is (-0.0 stays -0.0) and, for $mul, the operand times int32 0: zero of the operand's
      // type, -0.0 for a negative double or -0.0, NaN for an infinite or NaN double.
      if (add && x.isDouble() && Double.doubleToRawLongBits(x.asDouble().getValue())
          == Double.doubleToRawLongBits(-0.0)) {
        // MongoDB stores -0.0; the embedded test server stores 0.0, so the model could not be
        // checked against a server: left to the server.
        throw new NotModelled("$inc by -0.0 of a missing field at " + op.path());
      }
      return add ? x : arithmetic(op, x, new BsonInt32(0), false);
    }
    if (!InMemoryOrder.isPlainNumber(now)) {
      throw new NotModelled(op.operator() + " of a " + now.getBsonType() + " at " + op.path());
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
      throw new NotModelled(op.operator() + " overflows int64 at " + op.path());
    }
    if (now.isInt32() && x.isInt32() && r == (int) r) {
      return new BsonInt32((int) r);
    }
    return new BsonInt64(r);
  }

  /** {@code $min} or {@code $max}: the operand if it wins over {@code now} in BSON order. */
  static BsonValue minOrMax(Op op, BsonValue now) {
    BsonValue x = op.operand();
    if (now == null) {
      return InMemoryPaths.copy(x);
    }
    if (isNaN(x) || isNaN(now)) {
      // MongoDB orders NaN below every number; the embedded test server does not, so this
      // case could not be checked against a server and is left to the server.
      throw new NotModelled(op.operator() + " with NaN at " + op.path());
    }
    int c = InMemoryOrder.compare(x, now, op.path());
    boolean replace = op.operator().equals("$min") ? c < 0 : c > 0;
    return replace ? InMemoryPaths.copy(x) : null;
  }

  private static boolean isNaN(BsonValue v) {
    return v.isDouble() && Double.isNaN(v.asDouble().getValue());
  }
}
