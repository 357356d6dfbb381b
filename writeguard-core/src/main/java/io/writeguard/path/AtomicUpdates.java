package io.writeguard.path;

import com.mongodb.client.model.Updates;
import java.util.Objects;
import org.bson.conversions.Bson;
import org.bson.types.Decimal128;

/**
 * One-round-trip updates on a validated {@link FieldPath}: no read, no lock, no retry. Use these
 * whenever a change fits one operator; MongoDB applies every single-document update atomically,
 * so two concurrent calls can never erase each other.
 *
 * <pre>{@code
 * // the seed's "mark as read": idempotent, a repeated click adds nothing
 * collection.updateOne(
 *     and(eq("_id", id), exists(item.toString())),   // no such item: matchedCount 0, nothing padded
 *     AtomicUpdates.addToSet(item.field("read"), userId));
 * }</pre>
 *
 * <p>Values are written as data: update operators never interpret operators inside a value.
 * Combine several with {@link Updates#combine}. Stateless and thread-safe.
 */
public final class AtomicUpdates {
  private AtomicUpdates() {}

  /** {@code $addToSet}: adds {@code value} to the array unless an equal element is there. */
  public static <T> Bson addToSet(FieldPath path, T value) {
    return Updates.addToSet(FieldPath.requireNonNull(path).toString(), value);
  }

  /** {@code $push}: appends {@code value}, even when an equal element is already there. */
  public static <T> Bson push(FieldPath path, T value) {
    return Updates.push(FieldPath.requireNonNull(path).toString(), value);
  }

  /**
   * {@code $inc}: adds {@code amount} (negative to subtract).
   *
   * @param amount an Integer, Long, Double or Decimal128; finite
   * @throws IllegalArgumentException naming the amount when it is null, NaN, infinite or of a
   *     type BSON cannot store as a number
   */
  public static Bson inc(FieldPath path, Number amount) {
    return Updates.inc(FieldPath.requireNonNull(path).toString(), checkAmount(amount));
  }

  /** {@code $set}: replaces the value at the path (creating missing parent documents). */
  public static <T> Bson set(FieldPath path, T value) {
    return Updates.set(FieldPath.requireNonNull(path).toString(), value);
  }

  private static Number checkAmount(Number amount) {
    Objects.requireNonNull(amount, "inc amount must not be null");
    if (amount instanceof Integer || amount instanceof Long) {
      return amount;
    }
    if (amount instanceof Double) {
      if (!Double.isFinite(amount.doubleValue())) {
        throw new IllegalArgumentException("inc amount must be finite, was " + amount);
      }
      return amount;
    }
    if (amount instanceof Decimal128) {
      Decimal128 d = (Decimal128) amount;
      if (d.isNaN() || d.isInfinite()) {
        throw new IllegalArgumentException("inc amount must be finite, was " + amount);
      }
      return amount;
    }
    throw new IllegalArgumentException("inc amount must be an Integer, Long, Double or"
        + " Decimal128, was " + amount + " (" + amount.getClass().getName() + ")");
  }
}
