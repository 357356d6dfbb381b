package io.writeguard.app.lab;

import io.writeguard.internal.Checks;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a run left in the documents, counted exactly.
 *
 * @param expected what must be visible because it was acknowledged (for {@code readinfo}: the
 *     distinct marks acknowledged; a mark acknowledged twice counts once)
 * @param visible how much of {@code expected} the documents hold
 * @param figures scenario-specific numbers reported next to the standard ones (for
 *     {@code counter}: {@code final_total}, {@code expected_total}, {@code min_total}, ...),
 *     in the order given; names are JSON names. A figure named {@link #VIOLATIONS} counts
 *     broken invariants (e.g. a negative total seen by a reader) and fails the run like a lost
 *     update.
 */
public record Verification(long expected, long visible, Map<String, Object> figures) {
  /** The figure that counts broken invariants other than lost updates. */
  public static final String VIOLATIONS = "violations";

  public Verification {
    Checks.atLeast("expected", expected, 0);
    Checks.atLeast("visible", visible, 0);
    if (visible > expected) {
      throw new IllegalArgumentException(
          "visible must be <= expected, was " + visible + " > " + expected);
    }
    figures = java.util.Collections.unmodifiableMap(
        new LinkedHashMap<>(Objects.requireNonNull(figures, "figures")));
  }

  /** A verification with no scenario-specific figures. */
  public Verification(long expected, long visible) {
    this(expected, visible, Map.of());
  }

  /** Acknowledged but not visible: lost updates. */
  public long lost() {
    return expected - visible;
  }
}
