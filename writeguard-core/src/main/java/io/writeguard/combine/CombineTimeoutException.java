package io.writeguard.combine;

import io.writeguard.WriteGuardException;
import java.time.Duration;

/**
 * A request waited in a {@link KeyedCombiner}'s queue for its whole allowed wait and no batch
 * took it. It was withdrawn from the queue, so no step will ever see it again: nothing is in
 * flight for it ({@link #attemptsMade} says what batches that handed it back had tried).
 * Immutable and thread-safe.
 */
public class CombineTimeoutException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final transient Object key;
  private final Duration waited;
  private final int attemptsMade;

  public CombineTimeoutException(Object key, Duration waited) {
    this(key, waited, 0);
  }

  /** For a request handed back after {@code attemptsMade} attempts by earlier batches. */
  public CombineTimeoutException(Object key, Duration waited, int attemptsMade) {
    super("request for key " + key + " waited " + waited.toMillis() + "ms in the combiner's"
        + " queue and no batch took it; withdrawn, "
        + (attemptsMade == 0 ? "nothing was done for it"
            : "nothing in flight for it after " + attemptsMade + " attempts that wrote nothing"));
    this.key = key;
    this.waited = waited;
    this.attemptsMade = attemptsMade;
  }

  /**
   * The attempts made for the request by batches that handed it back before it was withdrawn
   * ({@link KeyedCombiner.Batch#handBack}); 0 when none did.
   */
  public int attemptsMade() {
    return attemptsMade;
  }

  /** The key the request was queued under. */
  public Object key() {
    return key;
  }

  /** How long it waited. */
  public Duration waited() {
    return waited;
  }
}
