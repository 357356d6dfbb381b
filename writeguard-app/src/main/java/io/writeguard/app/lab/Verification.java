package io.writeguard.app.lab;

import io.writeguard.internal.Checks;

/**
 * What a run left in the documents, counted exactly.
 *
 * @param expected what must be visible because it was acknowledged (for {@code readinfo}: the
 *     distinct marks acknowledged; a mark acknowledged twice counts once)
 * @param visible how much of {@code expected} the documents hold
 */
public record Verification(long expected, long visible) {
  public Verification {
    Checks.atLeast("expected", expected, 0);
    Checks.atLeast("visible", visible, 0);
    if (visible > expected) {
      throw new IllegalArgumentException(
          "visible must be <= expected, was " + visible + " > " + expected);
    }
  }

  /** Acknowledged but not visible: lost updates. */
  public long lost() {
    return expected - visible;
  }
}
