package io.writeguard.monitor;

import io.writeguard.internal.Checks;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The keys with the most conflicts, in bounded memory.
 *
 * <p>Uses the Space-Saving algorithm (Metwally et al., 2005): at most {@code capacity} counters;
 * a new key evicts the smallest counter and inherits its count as an over-estimate. Any key
 * whose true count exceeds total/capacity is guaranteed to be tracked, which is exactly the
 * "hot key" we want to name in a warning, while an endless stream of distinct ids costs nothing
 * more. Counts are upper bounds; {@link Entry#error()} says by how much at most.
 *
 * <p>Thread-safe (synchronised); called on conflicts only, not on every attempt.
 */
public final class HotKeys {

  /** A tracked key, its counted conflicts (an upper bound) and the possible over-count. */
  public record Entry(String key, long count, long error) {}

  private final int capacity;
  private final Map<String, long[]> counters = new HashMap<>();

  public HotKeys(int capacity) {
    this.capacity = Checks.atLeast("capacity", capacity, 1);
  }

  /** Counts one event for {@code key}. */
  public synchronized void record(String key) {
    long[] counter = counters.get(key);
    if (counter != null) {
      counter[0]++;
      return;
    }
    if (counters.size() < capacity) {
      counters.put(key, new long[] {1, 0});
      return;
    }
    Map.Entry<String, long[]> smallest = null;
    for (Map.Entry<String, long[]> e : counters.entrySet()) {
      if (smallest == null || e.getValue()[0] < smallest.getValue()[0]) {
        smallest = e;
      }
    }
    long floor = smallest.getValue()[0];
    counters.remove(smallest.getKey());
    counters.put(key, new long[] {floor + 1, floor});
  }

  /** The {@code n} keys with the highest counts, highest first. */
  public synchronized List<Entry> top(int n) {
    List<Entry> entries = new ArrayList<>(counters.size());
    counters.forEach((k, v) -> entries.add(new Entry(k, v[0], v[1])));
    entries.sort(Comparator.comparingLong(Entry::count).reversed().thenComparing(Entry::key));
    return List.copyOf(entries.subList(0, Math.min(n, entries.size())));
  }

  /** How many keys are tracked now (never more than the capacity). */
  public synchronized int size() {
    return counters.size();
  }
}
