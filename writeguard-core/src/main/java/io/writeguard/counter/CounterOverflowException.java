package io.writeguard.counter;

import io.writeguard.WriteGuardException;
import java.util.List;

/**
 * The shards of a counter add up to more than int64 holds, so its total cannot be given.
 * Immutable and thread-safe.
 */
public class CounterOverflowException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final String counterId;
  private final transient List<Long> shards;

  public CounterOverflowException(String counterId, List<Long> shards) {
    super("counter '" + counterId + "': its shards " + shards + " add up to more than int64"
        + " holds (" + Long.MAX_VALUE + ")");
    this.counterId = counterId;
    this.shards = List.copyOf(shards);
  }

  public String counterId() {
    return counterId;
  }

  /** Every shard's value, index = shard number. */
  public List<Long> shards() {
    return shards;
  }
}
