package io.writeguard.app.lab;

/**
 * Which measurement the lab is at: a strategy, at a client count, in a round, and where that
 * is in the whole run. Immutable.
 *
 * @param round 1-based
 * @param position the strategy's place in this round's order, 1-based; 0 when unknown
 * @param strategies how many strategies the round measures; 0 when unknown
 * @param timeLeftNanos the estimated time until the whole run is done; negative when
 *     unknown (see {@link LabSchedule})
 */
public record LabStep(String strategy, int clients, int round, int rounds, int position,
    int strategies, long timeLeftNanos) {

  /** A step that does not know its place in the run. */
  public LabStep(String strategy, int clients, int round, int rounds) {
    this(strategy, clients, round, rounds, 0, 0, -1);
  }

  /** The same step with another estimate of the time left. */
  public LabStep withTimeLeft(long nanos) {
    return new LabStep(strategy, clients, round, rounds, position, strategies, nanos);
  }

  /**
   * {@code strategy 2 of 7, about 1m05s left}, or the part of it that is known, or "".
   */
  public String placeInRun() {
    String where = position > 0 && strategies > 1
        ? "strategy " + position + " of " + strategies : "";
    String left = timeLeftNanos >= 0 ? "about " + LabSchedule.format(timeLeftNanos) + " left"
        : "";
    return where.isEmpty() || left.isEmpty() ? where + left : where + ", " + left;
  }
}
