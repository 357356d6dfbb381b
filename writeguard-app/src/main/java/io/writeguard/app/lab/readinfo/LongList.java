package io.writeguard.app.lab.readinfo;

import java.util.Arrays;

/** A growable array of longs. Not thread-safe. */
final class LongList {
  private long[] values = new long[256];
  private int size;

  void add(long value) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size * 2);
    }
    values[size++] = value;
  }

  void addAll(LongList other) {
    for (int i = 0; i < other.size; i++) {
      add(other.values[i]);
    }
  }

  int size() {
    return size;
  }

  /** The values sorted with duplicates removed, as a new array. */
  long[] sortedDistinct() {
    long[] copy = Arrays.copyOf(values, size);
    Arrays.sort(copy);
    int n = 0;
    for (int i = 0; i < copy.length; i++) {
      if (i == 0 || copy[i] != copy[i - 1]) {
        copy[n++] = copy[i];
      }
    }
    return Arrays.copyOf(copy, n);
  }
}
