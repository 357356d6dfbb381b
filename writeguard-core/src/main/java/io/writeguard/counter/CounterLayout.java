package io.writeguard.counter;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Where a {@link ShardedCounter} keeps its shards. Immutable and thread-safe (an enum). */
public enum CounterLayout {
  /**
   * Shards are fields of one document ({@code balance_shard_0..N-1}, the seed's layout). Every
   * write still goes to the same document, which MongoDB serialises, so this spreads the
   * conditional decrements over fields but not the write load. A combining decrement is one
   * atomic update.
   */
  FIELDS,
  /**
   * Shards are separate documents ({@code _id: "<counter>#<i>"}), so writes to different shards
   * really run in parallel. A decrement that needs several shards drains them under a lock.
   */
  DOCUMENTS;

  /** Parses {@code fields} or {@code documents} (any case), naming the bad value otherwise. */
  public static CounterLayout parse(String name) {
    if (name != null) {
      for (CounterLayout layout : values()) {
        if (layout.name().equalsIgnoreCase(name.trim())) {
          return layout;
        }
      }
    }
    throw new IllegalArgumentException("unknown counter layout "
        + (name == null ? "null" : "'" + name + "'") + " (expected one of "
        + Arrays.stream(values()).map(l -> l.name().toLowerCase(Locale.ROOT))
            .collect(Collectors.joining(", ")) + ")");
  }
}
