package io.writeguard.combine;

import io.writeguard.WriteGuardException;
import java.time.Duration;

/**
 * A request waited in a {@link KeyedCombiner}'s queue for its whole allowed wait and no batch
 * took it. It was withdrawn from the queue, so no step will ever see it: nothing was done for
 * it. Immutable and thread-safe.
 */
public class CombineTimeoutException extends WriteGuardException {
  private static final long serialVersionUID = 1L;

  private final transient Object key;
  private final Duration waited;

  public CombineTimeoutException(Object key, Duration waited) {
    super("request for key " + key + " waited " + waited.toMillis() + "ms in the combiner's"
        + " queue and no batch took it; withdrawn, nothing was done for it");
    this.key = key;
    this.waited = waited;
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
