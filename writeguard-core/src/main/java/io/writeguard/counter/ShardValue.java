package io.writeguard.counter;

import java.util.Arrays;
import org.bson.types.Decimal128;

/**
 * Reads one stored shard value as the int64 it must be. Not API; stateless.
 *
 * <p>Why strict. WriteGuard only ever writes int64 shards ({@code $inc} of a long); anything
 * else was written by other code. Read leniently, a string or a null counted as 0 and a double
 * was truncated ([5, "100"] totalled 5, [2.5, 2.5] totalled 4), so the total was wrong with no
 * word said. An int32 and a decimal with no fraction within int64 are that integer; anything
 * else is a {@link CorruptShardException} naming the shard and the value. An absent field or
 * shard document is 0 (that is how a shard starts).
 */
final class ShardValue {
  private ShardValue() {}

  /**
   * @param where the shard's place, for the error: its document and field
   * @param value the value read; Java null is a stored BSON null (pass only present fields)
   */
  static long of(String counterId, int shard, String where, Object value) {
    if (value instanceof Long l) {
      return l;
    }
    if (value instanceof Integer i) {
      return i;
    }
    if (value instanceof Decimal128 d && !d.isNaN() && !d.isInfinite()) {
      try {
        return d.bigDecimalValue().longValueExact();
      } catch (ArithmeticException fractionOrTooBig) {
        // reported below; -0 lands here too, and is no integer the counter wrote
      }
    }
    throw new CorruptShardException(counterId, shard, where, text(value));
  }

  /** The sum of the shards, or {@link CounterOverflowException} when int64 cannot hold it. */
  static long total(String counterId, long[] values) {
    try {
      return ShardPlans.sum(values);
    } catch (ArithmeticException e) {
      throw new CounterOverflowException(counterId, Arrays.stream(values).boxed().toList());
    }
  }

  private static String text(Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof String s) {
      return "\"" + s + "\" (a string)";
    }
    return value + " (" + value.getClass().getSimpleName() + ")";
  }
}
