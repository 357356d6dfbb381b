package io.writeguard.app.readinfo;

import io.writeguard.internal.Checks;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * What one acknowledged mark did. Immutable and thread-safe.
 *
 * @param strategy the strategy's name
 * @param added true when the user was added; false for a repeated click (the user was there
 *     already, nothing was written)
 * @param version the document's version after the mark, for strategies that read it
 *     ({@code optimistic}, {@code adaptive}, the lock strategies); empty for {@code atomic}
 *     (one blind update) and {@code naive}
 * @param attempts read-change-write attempts made, the acknowledged one included (1 for
 *     {@code atomic})
 * @param fencedRejections writes MongoDB refused because a newer lock holder had written the
 *     document (the lease was lost); each was followed by a new lock and a new attempt
 */
public record MarkResult(
    String strategy, boolean added, OptionalLong version, int attempts, int fencedRejections) {
  public MarkResult {
    Checks.notBlank("strategy", strategy);
    Objects.requireNonNull(version, "version");
    Checks.atLeast("attempts", attempts, 1);
    Checks.atLeast("fencedRejections", fencedRejections, 0);
  }
}
