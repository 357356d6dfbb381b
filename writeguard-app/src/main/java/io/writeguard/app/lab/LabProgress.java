package io.writeguard.app.lab;

import java.io.PrintWriter;

/**
 * Hears how a lab run is going, for a display. Called from the runner's thread only, so
 * implementations need not be thread-safe.
 */
public interface LabProgress {

  /**
   * About every 200 ms while a strategy's clients run.
   *
   * @param phase {@code warming up} or {@code measuring}
   * @param completed operations the clients have completed so far (acknowledged or not)
   */
  default void running(LabStep step, String phase, long elapsedNanos, long completed) {}

  /** A strategy's measured round is done and counted. */
  void finished(LabStep step, StrategyResult result);

  /** A line worth the user's attention that is not a result (e.g. a strategy failed to close). */
  void note(String line);

  /**
   * One plain line per finished strategy (the lab's display when its output is not a
   * terminal). {@code showClients} adds the client count to each line (for sweeps).
   */
  static LabProgress plain(PrintWriter out, boolean showClients) {
    return new PlainProgress(out, showClients);
  }

  /**
   * The line printed when a strategy finishes: {@code lab: atomic       done in 10.0 s: 1,234
   * acknowledged, 0 lost, 0 errors}, with {@code (16 clients, round 2/3)} where that says
   * something.
   */
  static String summary(LabStep step, StrategyResult result, boolean showClients) {
    return PlainProgress.line(step, result, showClients);
  }

  /** {@code 16 clients, round 2/3}, or the part of it that says something, or "". */
  static String where(LabStep step, boolean showClients) {
    return PlainProgress.where(step, showClients);
  }
}
