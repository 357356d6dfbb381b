package io.writeguard.monitor;

import java.util.Objects;

/**
 * Where an update event happened: the collection and the strategy that made it. Both are
 * low-cardinality on purpose, so they can be meter tags; document keys never are.
 * Immutable and thread-safe.
 */
public record OperationScope(String collection, String strategy) {
  public OperationScope {
    Objects.requireNonNull(collection, "collection");
    Objects.requireNonNull(strategy, "strategy");
  }
}
