package io.writeguard.app.lab;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Objects;

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
        where.isEmpty() ? "" : " (" + where + ")");
  }

  /** {@code 16 clients, round 2/3}, or the part of it that says something. */
  static String where(LabStep step, boolean showClients) {
    String clients = showClients ? step.clients() + " clients" : "";
    String round = step.rounds() > 1 ? "round " + step.round() + "/" + step.rounds() : "";
    return clients.isEmpty() || round.isEmpty() ? clients + round : clients + ", " + round;
  }
}
