package io.writeguard.update;

import io.writeguard.update.InMemoryUpdate.NotModelled;
import java.math.BigDecimal;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.BsonValue;

/**
 * Comparison and equality of {@link InMemoryUpdate}, in the server's BSON order, or refused.
 * Compared: null, numbers and strings of which at most one is a string ({@code $min},
 * {@code $max}); equal: documents (field order matters), arrays, numbers across types
 * ({@code 1 == 1.0}) and plain scalar types ({@code $addToSet}, {@code $pull}). Two strings are
 * never compared: the collection's default collation (which the model cannot see) decides their
 * order and equality. Nor are the numbers the embedded test server compares differently from
 * MongoDB (-0.0, an int64 beyond 2^53 against a double). Stateless and thread-safe.
 */
final class InMemoryOrder {
  private InMemoryOrder() {}

  /** The server's order for null, numbers and strings; anything else is not modelled. */
  static int compare(BsonValue a, BsonValue b, String path) {
    int ra = rank(a, path);
    int rb = rank(b, path);
    if (ra != rb) {
      return Integer.compare(ra, rb);
    }
    if (ra == 1) {
      checkComparableNumbers(a, b, path);
    }
    return switch (ra) {
      case 0 -> 0;
      case 1 -> compareNumbers(a, b);
      default -> throw stringsCompared(path);
    };
  }

  /**
   * Two strings compare by the collection's default collation, which the model cannot see
   * (a case-insensitive one makes "a" equal "A"): left to the server.
   */
  private static NotModelled stringsCompared(String path) {
    return new NotModelled("comparing two strings at " + path
        + " (the collection's collation decides)");
  }

  private static int rank(BsonValue v, String path) {
    if (v.isNull()) {
      return 0;
    }
    if (isPlainNumber(v)) {
      return 1;
    }
    if (v.isString()) {
      return 2;
    }
    throw new NotModelled("comparing a " + v.getBsonType() + " at " + path);
  }

  /**
   * Refuses the number pairs the embedded test server compares differently from MongoDB
   * (which compares exactly and treats -0.0 as 0): -0.0, and an int64 beyond 2^53 against a
   * double. Left to the server.
   */
  private static void checkComparableNumbers(BsonValue a, BsonValue b, String path) {
    for (BsonValue v : new BsonValue[] {a, b}) {
      if (v.isDouble() && v.asDouble().getValue() == 0.0
          && Double.doubleToRawLongBits(v.asDouble().getValue()) != 0L) {
        throw new NotModelled("comparing -0.0 at " + path);
      }
    }
    if (a.isDouble() != b.isDouble()) {
      BsonValue integral = a.isDouble() ? b : a;
      if (Math.abs((double) integral.asNumber().longValue()) >= 0x1p53) {
        throw new NotModelled("comparing an integer beyond 2^53 with a double at " + path);
      }
    }
  }

  static int compareNumbers(BsonValue a, BsonValue b) {
    if (!a.isDouble() && !b.isDouble()) {
      return Long.compare(a.asNumber().longValue(), b.asNumber().longValue());
    }
    double da = a.isDouble() ? a.asDouble().getValue() : Double.NaN;
    double db = b.isDouble() ? b.asDouble().getValue() : Double.NaN;
    boolean nanA = a.isDouble() && Double.isNaN(da);
    boolean nanB = b.isDouble() && Double.isNaN(db);
    if (nanA || nanB) {
      return nanA && nanB ? 0 : nanA ? -1 : 1; // NaN sorts below every number
    }
    if (a.isDouble() && Double.isInfinite(da) || b.isDouble() && Double.isInfinite(db)) {
      double x = a.isDouble() ? da : a.asNumber().longValue();
      double y = b.isDouble() ? db : b.asNumber().longValue();
      return Double.compare(x == 0 ? 0.0 : x, y == 0 ? 0.0 : y);
    }
    return exact(a).compareTo(exact(b));
  }

  private static BigDecimal exact(BsonValue v) {
    return v.isDouble() ? new BigDecimal(v.asDouble().getValue())
        : BigDecimal.valueOf(v.asNumber().longValue());
  }

  /**
   * Equality as the server's comparison sees it ({@code 1 == 1.0}; documents by field order);
   * two strings are not modelled.
   */
  static boolean same(BsonValue a, BsonValue b, String path) {
    checkComparable(a, path);
    checkComparable(b, path);
    if (isPlainNumber(a) && isPlainNumber(b)) {
      checkComparableNumbers(a, b, path);
      return compareNumbers(a, b) == 0;
    }
    if (a.getBsonType() != b.getBsonType()) {
      return false;
    }
    if (a.isString()) {
      throw stringsCompared(path);
    }
    if (a.isDocument()) {
      BsonDocument x = a.asDocument();
      BsonDocument y = b.asDocument();
      if (x.size() != y.size()) {
        return false;
      }
      var ix = x.entrySet().iterator();
      var iy = y.entrySet().iterator();
      while (ix.hasNext()) {
        var ex = ix.next();
        var ey = iy.next();
        if (!ex.getKey().equals(ey.getKey()) || !same(ex.getValue(), ey.getValue(), path)) {
          return false;
        }
      }
      return true;
    }
    if (a.isArray()) {
      List<BsonValue> x = a.asArray().getValues();
      List<BsonValue> y = b.asArray().getValues();
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!same(x.get(i), y.get(i), path)) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }

  private static void checkComparable(BsonValue v, String path) {
    BsonType t = v.getBsonType();
    if (t == BsonType.DECIMAL128 || t == BsonType.SYMBOL || t == BsonType.UNDEFINED
        || t == BsonType.DB_POINTER || t == BsonType.JAVASCRIPT
        || t == BsonType.JAVASCRIPT_WITH_SCOPE) {
      throw new NotModelled("comparing a " + t + " at " + path);
    }
  }

  /** An int32, int64 or double: the numbers the model computes with. */
  static boolean isPlainNumber(BsonValue v) {
    return v.isInt32() || v.isInt64() || v.isDouble();
  }
}
