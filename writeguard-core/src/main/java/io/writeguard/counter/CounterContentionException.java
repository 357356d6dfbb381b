package io.writeguard.counter;

import io.writeguard.WriteGuardException;

/**
 * A combining decrement kept losing races with other decrements on the same shards and ran
 * out of attempts. Nothing was written; the caller may retry later. Immutable and thread-safe.
 */
public class CounterContentionException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  public CounterContentionException(String counterId, long amount, int attempts) {
    super("counter '" + counterId + "': decrement by " + amount + " lost " + attempts
        + " races in a row with concurrent decrements; nothing was written");
  }
}
