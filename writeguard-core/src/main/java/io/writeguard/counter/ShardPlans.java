package io.writeguard.counter;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/** Arithmetic on shard values. Not API. */
final class ShardPlans {
  private ShardPlans() {}

  static long sum(long[] values) {
    long total = 0;
    for (long v : values) {
      total = Math.addExact(total, v);
    }
    return total;
  }

  /** Shard indexes, largest value first. */
  static int[] largestFirst(long[] values) {
    return IntStream.range(0, values.length).boxed()
        .sorted(Comparator.comparingLong((Integer i) -> values[i]).reversed())
        .mapToInt(Integer::intValue).toArray();
  }

  /**
   * How much to take from each shard to make {@code amount}: all of it from the largest shard
   * when that one suffices, else greedily from the largest down, so as few shards as possible
   * are touched. The caller has checked that the values add up to at least {@code amount}.
   */
  static long[] plan(long[] values, long amount) {
    long[] take = new long[values.length];
    long remaining = amount;
    for (int i : largestFirst(values)) {
      if (remaining == 0) {
        break;
      }
      long t = Math.min(values[i], remaining);
      take[i] = t;
      remaining -= t;
    }
    if (remaining > 0) {
      throw new IllegalArgumentException("shards " + Arrays.toString(values)
          + " do not add up to " + amount);
    }
    return take;
  }

  static int countPositive(long[] values) {
    int n = 0;
    for (long v : values) {
      if (v > 0) {
        n++;
      }
    }
    return n;
  }
}
