package io.writeguard.counter;

import io.writeguard.WriteGuardException;
import java.util.Map;

/**
 * A combining decrement failed after draining some shards, and giving the drained amounts
 * back failed too (the server went away). The counter is short by the named amounts until they
 * are added back by hand; it is never negative. Immutable and thread-safe.
 */
public class StrandedBalanceException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final transient Map<Integer, Long> strandedByShard;

  public StrandedBalanceException(String counterId, Map<Integer, Long> strandedByShard,
      Throwable cause) {
    super("counter '" + counterId + "': a failed decrement could not give back what it drained"
        + " (shard -> amount) " + strandedByShard + "; add these back to restore the total",
        cause);
    this.strandedByShard = Map.copyOf(strandedByShard);
  }

  /** Shard index to the amount that was drained and not returned. */
  public Map<Integer, Long> strandedByShard() {
    return strandedByShard;
  }
}
