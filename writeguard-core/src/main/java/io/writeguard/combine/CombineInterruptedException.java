package io.writeguard.combine;

import io.writeguard.WriteGuardInterruptedException;

/**
 * A request's caller was interrupted while its request was still queued in a
 * {@link KeyedCombiner}: it was withdrawn, so no step will ever see it and nothing was done
 * for it. The interrupt flag is restored. Immutable and thread-safe.
 */
public class CombineInterruptedException extends WriteGuardInterruptedException {
  private static final long serialVersionUID = 1L;

  public CombineInterruptedException(Object key) {
    super("queued in a combiner for key " + key + "; withdrawn, nothing was done for it",
        new InterruptedException());
  }
}
