package io.writeguard.app.lab;

import io.writeguard.Ticker;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Objects;

/**
 * Hears how a lab run is going, for a display. Called from the runner's thread only, so
 * implementations need not be thread-safe.
 *
 * <p>Two displays: {@link PlainProgress}, one line per finished round (logs, pipes, CI), and
 * {@link TerminalProgress}, a live line rewritten in place. Both say which strategy of how
 * many and which round is running, and about how long the whole run has left.
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
   * something, and {@code -- strategy 2 of 7, about 1m05s left} where the step knows it.
   */
  static String summary(LabStep step, StrategyResult result, boolean showClients) {
    return PlainProgress.line(step, result, showClients);
  }

  /** {@code 16 clients, round 2/3}, or the part of it that says something, or "". */
  static String where(LabStep step, boolean showClients) {
    return PlainProgress.where(step, showClients);
  }

  /**
   * One line per finished strategy, nothing while it runs: fit for logs and pipes. Not
   * thread-safe (the runner calls it from one thread).
   */
  final class PlainProgress implements LabProgress {
    private final PrintWriter out;
    private final boolean showClients;

    PlainProgress(PrintWriter out, boolean showClients) {
      this.out = Objects.requireNonNull(out, "out");
      this.showClients = showClients;
    }

    @Override
    public void finished(LabStep step, StrategyResult r) {
      out.println(line(step, r, showClients));
      out.flush();
    }

    @Override
    public void note(String line) {
      out.println(line);
      out.flush();
    }

    /** {@code lab: atomic       done in 10.0 s: 1,234 acknowledged, 0 lost, 0 errors}. */
    static String line(LabStep step, StrategyResult r, boolean showClients) {
      String where = where(step, showClients);
      return String.format(Locale.ROOT,
          "lab: %-12s done in %.1f s: %,d acknowledged, %,d lost, %,d errors%s",
          r.strategy(), r.elapsedS(), r.acknowledged(), r.lostUpdates(), r.errors(),
          where.isEmpty() ? "" : " (" + where + ")") + place(step);
    }

    /** {@code  -- strategy 2 of 7, about 1m05s left}, or "" when the step does not know. */
    static String place(LabStep step) {
      String place = step.placeInRun();
      return place.isEmpty() ? "" : " -- " + place;
    }

    /** {@code 16 clients, round 2/3}, or the part of it that says something. */
    static String where(LabStep step, boolean showClients) {
      String clients = showClients ? step.clients() + " clients" : "";
      String round = step.rounds() > 1 ? "round " + step.round() + "/" + step.rounds() : "";
      return clients.isEmpty() || round.isEmpty() ? clients + round : clients + ", " + round;
    }
  }

  /**
   * A live status line for a terminal: while a strategy runs, one line rewritten in place
   * ({@code \r}) with the phase, elapsed time, operations and operations per second; when it
   * finishes, the line is replaced by the same summary the plain display prints, and a new
   * line begins. Redrawn at most every 200 ms. Not thread-safe (the runner calls it from one
   * thread).
   */
  final class TerminalProgress implements LabProgress {
    private static final long REDRAW_NANOS = 200_000_000L;

    private final PrintWriter out;
    private final boolean showClients;
    private final Ticker ticker;
    private long lastDraw = Long.MIN_VALUE;
    private int lastWidth;

    public TerminalProgress(PrintWriter out, boolean showClients, Ticker ticker) {
      this.out = Objects.requireNonNull(out, "out");
      this.showClients = showClients;
      this.ticker = Objects.requireNonNull(ticker, "ticker");
    }

    /**
     * True when the lab's output goes to a person at a terminal: the JVM has a console (stdin
     * and stdout are terminals) and {@code CI} is not {@code true}.
     */
    public static boolean wanted() {
      return System.console() != null && !"true".equalsIgnoreCase(System.getenv("CI"));
    }

    /** This display on a terminal, else one plain line per finished strategy. */
    public static LabProgress choose(PrintWriter out, boolean showClients) {
      return wanted()
          ? new TerminalProgress(out, showClients, Ticker.system())
          : LabProgress.plain(out, showClients);
    }

    @Override
    public void running(LabStep step, String phase, long elapsedNanos, long completed) {
      long now = ticker.nanoTime();
      if (lastDraw != Long.MIN_VALUE && now - lastDraw < REDRAW_NANOS) {
        return;
      }
      lastDraw = now;
      double seconds = elapsedNanos / 1e9;
      String where = where(step);
      draw(String.format(Locale.ROOT, "lab: %-12s %s%s %5.1f s %,12d ops %,10.0f ops/s",
          step.strategy(), phase, where.isEmpty() ? "" : " (" + where + ")", seconds, completed,
          seconds > 0 ? completed / seconds : 0.0) + PlainProgress.place(step));
    }

    @Override
    public void finished(LabStep step, StrategyResult result) {
      draw(line(step, result));
      out.print(System.lineSeparator());
      out.flush();
      lastWidth = 0;
      lastDraw = Long.MIN_VALUE;
    }

    @Override
    public void note(String line) {
      // On a line of its own: the next redraw starts a fresh progress line below it.
      if (lastWidth > 0) {
        out.print(System.lineSeparator());
      }
      out.println(line);
      out.flush();
      lastWidth = 0;
      lastDraw = Long.MIN_VALUE;
    }

    private void draw(String text) {
      // \r returns to the line's start; spaces wipe what a longer previous text left behind.
      out.print('\r' + text + " ".repeat(Math.max(0, lastWidth - text.length())));
      out.flush();
      lastWidth = text.length();
    }

    private String line(LabStep step, StrategyResult r) {
      return LabProgress.summary(step, r, showClients);
    }

    private String where(LabStep step) {
      return LabProgress.where(step, showClients);
    }
  }
}
