package io.writeguard.app.lab.report;

import io.writeguard.app.lab.api.Scenario.Verification;
import io.writeguard.app.lab.report.ResultTable.ClosingNote;
import io.writeguard.app.lab.result.LabReport.ProcessesPoint;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * Which strategy to pick for the workload just measured, and why, computed from the rows of this
 * run alone. Printed after the table; also what the tests check with hand-built rows. Stateless.
 *
 * <p>The rules:
 *
 * <ul>
 *   <li>A strategy is a <em>candidate</em> only when it lost nothing, met no lock violation,
 *       broke no invariant, is not one of the strategies that exist to show the problem, and
 *       failed at most 1% of its operations. A strategy that lost updates is never recommended;
 *       it is named under "never".
 *   <li>If the change fits one update ({@code atomic}, or the sharded counters), the fastest such
 *       candidate is recommended first, with its speed against the best strategy that reads.
 *   <li>For a change that must read the document, the fastest reading candidate
 *       ({@code optimistic}, {@code adaptive}, a lock, a transaction), with its p99 and conflict
 *       ratio; {@code local-lock} carries "one process only".
 *   <li>A distributed lock ({@code mongo-lock}, {@code redis-lock}) is named last, with its
 *       cost against that choice: worth it only across processes when the work between read and
 *       write is long or must not run twice.
 * </ul>
 *
 * <p>Speeds within {@link #TIE} of the fastest of a kind are a tie, not a finding (rounds of
 * one strategy spread that much on a quiet machine): among tied candidates the simpler one is
 * named, in the order of {@link #PREFERENCE} (no lock service before one, several processes
 * before one), and the others are named as "within the noise". A choice whose rounds were
 * unsteady carries its {@code [UNSTEADY +-n%]} marker: the lab does not stand behind it.
 *
 * <p>{@link #acrossProcesses} compares the choices of several process counts
 * ({@code --processes 1,2,4}).
 *
 * <p>{@link #stormWarnings} names every strategy whose attempts conflicted more than
 * {@link #STORM_RATIO} of the time, the threshold of the library's {@code ConflictMonitor}.
 */
public final class Recommendation {
  /** Conflicts per attempt above which retries are a storm (the ConflictMonitor's default). */
  public static final double STORM_RATIO = 0.10;
  /** Errors per acknowledged operation a candidate may have. */
  static final double MAX_ERROR_RATIO = 0.01;
  private static final Set<String> NO_READ = Set.of("atomic", "sharded-fields", "sharded-docs");
  private static final Set<String> DISTRIBUTED_LOCKS = Set.of("mongo-lock", "redis-lock");
  private static final Set<String> ONE_PROCESS = Set.of("local-lock");
  /** Candidates this close to the fastest of their kind are a tie. */
  public static final double TIE = 0.10;
  /**
   * Among tied candidates, the first named here is recommended: the fewest moving parts
   * (no lock, no lock service, works across processes) first. Unnamed strategies come last.
   */
  static final List<String> PREFERENCE = List.of("atomic", "sharded-fields", "sharded-docs",
      "optimistic", "adaptive", "transaction", "local-lock", "mongo-lock", "redis-lock");

  private Recommendation() {}

  /**
   * The recommendation for {@code results} (one client count), one line each, starting with
   * {@code recommendation:}; {@code blind} names the strategies that exist to show the problem.
   */
  public static List<String> lines(List<StrategyResult> results, Set<String> blind) {
    List<StrategyResult> candidates = results.stream()
        .filter(r -> candidate(r, blind)).toList();
    List<StrategyResult> noReads = candidates.stream()
        .filter(r -> NO_READ.contains(r.strategy())).toList();
    List<StrategyResult> reads = candidates.stream()
        .filter(r -> !NO_READ.contains(r.strategy())).toList();
    Optional<StrategyResult> noRead = choose(noReads);
    Optional<StrategyResult> read = choose(reads);
    Optional<StrategyResult> lock = choose(candidates.stream()
        .filter(r -> DISTRIBUTED_LOCKS.contains(r.strategy())).toList());
    List<String> out = new ArrayList<>();
    if (candidates.isEmpty()) {
      out.add("recommendation: none; every strategy measured lost updates, broke an invariant"
          + " or failed more than " + pct(MAX_ERROR_RATIO) + " of its operations");
    } else {
      List<String> parts = new ArrayList<>();
      noRead.ifPresent(a -> parts.add(a.strategy() + " fits this change (no read needed): "
          + read.map(r -> times(a, r) + " " + r.strategy() + (a.throughputOpsS()
              < r.throughputOpsS() ? " (slower here, where " + r.strategy() + "'s group commit"
              + " batches this process's updates; still no read and no retry)" : ""))
              .orElse(String.format(Locale.ROOT, "%,.0f ops/s", a.throughputOpsS()))
          + ", " + facts(a) + tied(a, noReads)));
      read.ifPresent(r -> parts.add(r.strategy() + (noRead.isPresent() ? " if you must read ("
          : " for this change (") + facts(r)
          + (ONE_PROCESS.contains(r.strategy()) ? ", one process only" : "") + tied(r, reads)
          + ")"));
      lock.filter(l -> read.isEmpty() || !l.equals(read.get()))
          .ifPresent(l -> parts.add("a lock (" + l.strategy() + ": "
              + read.map(r -> times(l, r) + " " + r.strategy() + ", ").orElse("")
              + "p99 " + ms(l.latencyMs().p99()) + " ms) only across processes with long work"
              + " between read and write"));
      lock.filter(l -> read.isPresent() && l.equals(read.get()))
          .ifPresent(l -> parts.add("the lock is the fastest way to read here, but it pays a"
              + " round trip per hold: keep the work under it short"));
      out.add("recommendation: " + String.join("; ", parts));
      String why = noRead.isPresent()
          ? "why: an update the server applies needs no read, no retry and no lock"
          : "why: the fastest strategy that lost nothing";
      out.add("  " + why + "; speeds are this run's medians on this server");
    }
    List<String> never = new ArrayList<>();
    for (StrategyResult r : results) {
      if (r.lostUpdates() > 0) {
        never.add(String.format(Locale.ROOT, "%s (lost %,d acknowledged update%s)",
            r.strategy(), r.lostUpdates(), r.lostUpdates() == 1 ? "" : "s"));
      } else if (r.lockViolations() > 0 || r.figure(Verification.VIOLATIONS, 0) > 0) {
        never.add(r.strategy() + " (" + r.flags() + ")");
      }
    }
    if (!never.isEmpty()) {
      out.add("  never: " + String.join(", ", never));
    }
    return out;
  }

  /**
   * What changes with several instances, for {@code --processes 1,2,4} (same total clients):
   * the choice that reads at each process count with its speed against {@code atomic} there,
   * each reading strategy's ratio to {@code atomic} from the first process count to the last,
   * and the strategies that lost updates only across processes. {@code blind} answers, per
   * process count, the strategies whose losses are expected there. Empty for fewer than two
   * points.
   */
  public static List<String> acrossProcesses(List<ProcessesPoint> points,
      IntFunction<Set<String>> blind) {
    if (points.size() < 2) {
      return List.of();
    }
    List<String> choices = new ArrayList<>();
    List<String> chosen = new ArrayList<>();
    for (ProcessesPoint p : points) {
      Set<String> b = blind.apply(p.processes());
      Optional<StrategyResult> read = choose(p.results().stream()
          .filter(r -> candidate(r, b) && !NO_READ.contains(r.strategy())).toList());
      Optional<StrategyResult> atomic = baseline(p);
      chosen.add(read.map(StrategyResult::strategy).orElse("none"));
      choices.add(ClosingNote.processes(p.processes()) + " " + read.map(r -> r.strategy()
          + atomic.map(a -> " " + ResultTable.ratio(r, a) + " atomic").orElse("")
          + (r.conflicts() > 0 ? String.format(Locale.ROOT, " (%.1f%% conflicts)",
              100 * r.conflictRatio()) : "")
          + (r.unsteady() ? " " + r.steadinessMarker() : "")).orElse("none"));
    }
    ProcessesPoint first = points.get(0);
    ProcessesPoint last = points.get(points.size() - 1);
    List<String> out = new ArrayList<>();
    out.add("with several instances (" + last.clients() + " clients in all), if you must read: "
        + String.join("; ", choices));
    String from = chosen.get(0);
    String to = chosen.get(chosen.size() - 1);
    out.add("  " + (from.equals(to) ? from + " stays the choice from "
        + ClosingNote.processes(first.processes()) + " to " + last.processes()
        : "the choice changes from " + from + " at " + ClosingNote.processes(first.processes())
            + " to " + to + " at " + last.processes())
        + "; group commit combines the callers of one process only, so across processes"
        + " every turn on a hot document serves fewer of them");
    Optional<StrategyResult> a0 = baseline(first);
    Optional<StrategyResult> a1 = baseline(last);
    if (a0.isPresent() && a1.isPresent()) {
      List<String> moves = new ArrayList<>();
      for (StrategyResult r0 : first.results()) {
        Optional<StrategyResult> r1 = last.results().stream()
            .filter(r -> r.strategy().equals(r0.strategy())).findFirst();
        if (NO_READ.contains(r0.strategy()) || r1.isEmpty()
            || blind.apply(first.processes()).contains(r0.strategy())) {
          continue;
        }
        moves.add(r0.strategy() + " " + ResultTable.ratio(r0, a0.get()) + " -> "
            + ResultTable.ratio(r1.get(), a1.get())
            + (r1.get().flags().isEmpty() ? "" : " [" + r1.get().flags() + "]"));
      }
      if (!moves.isEmpty()) {
        out.add("  vs atomic from " + ClosingNote.processes(first.processes()) + " to "
            + last.processes() + ": " + String.join(", ", moves));
      }
    }
    List<String> lostAcross = new ArrayList<>();
    for (StrategyResult r : last.results()) {
      boolean cleanAlone = first.results().stream()
          .anyMatch(f -> f.strategy().equals(r.strategy()) && f.lostUpdates() == 0);
      if (r.lostUpdates() > 0 && cleanAlone) {
        lostAcross.add(String.format(Locale.ROOT, "%s (lost %,d%s)", r.strategy(),
            r.lostUpdates(), ONE_PROCESS.contains(r.strategy()) ? ", it locks one process only"
                : ""));
      }
    }
    if (!lostAcross.isEmpty()) {
      out.add("  never with several instances: " + String.join(", ", lostAcross));
    }
    return out;
  }

  private static Optional<StrategyResult> baseline(ProcessesPoint p) {
    return p.results().stream()
        .filter(r -> r.strategy().equals("atomic") && r.throughputOpsS() > 0).findFirst();
  }

  /** One line per strategy whose conflict ratio is above {@link #STORM_RATIO}. */
  public static List<String> stormWarnings(List<StrategyResult> results, Set<String> blind) {
    List<String> out = new ArrayList<>();
    for (StrategyResult r : results) {
      if (!blind.contains(r.strategy()) && r.conflictRatio() > STORM_RATIO) {
        out.add(String.format(Locale.ROOT,
            "warning: retry storm: %s: %.1f%% of %,d attempts conflicted (above %s), %,d"
                + " retries, p99 %s ms; queue the hot document (adaptive, a lock) or change"
                + " it with one atomic update",
            r.strategy(), 100 * r.conflictRatio(), r.attempts(), pct(STORM_RATIO), r.retries(),
            ms(r.latencyMs().p99())));
      }
    }
    return out;
  }

  /**
   * The fastest of {@code rs}, or among those within {@link #TIE} of it the first in
   * {@link #PREFERENCE}.
   */
  static Optional<StrategyResult> choose(List<StrategyResult> rs) {
    Optional<StrategyResult> fastest = rs.stream()
        .max(Comparator.comparingDouble(StrategyResult::throughputOpsS));
    return fastest.flatMap(f -> rs.stream()
        .filter(r -> r.throughputOpsS() >= (1 - TIE) * f.throughputOpsS())
        .min(Comparator.comparingInt(Recommendation::preference)));
  }

  private static int preference(StrategyResult r) {
    int i = PREFERENCE.indexOf(r.strategy());
    return i < 0 ? PREFERENCE.size() : i;
  }

  /**
   * {@code ; adaptive 1.04x, local-lock 1.07x of it: within the noise} for the candidates tied
   * with {@code chosen}, and its {@code [UNSTEADY +-n%]} marker; "" when neither applies.
   */
  private static String tied(StrategyResult chosen, List<StrategyResult> kind) {
    List<String> ties = new ArrayList<>();
    for (StrategyResult r : kind) {
      if (r != chosen && r.throughputOpsS() >= (1 - TIE) * chosen.throughputOpsS()
          && r.throughputOpsS() <= chosen.throughputOpsS() / (1 - TIE)) {
        ties.add(String.format(Locale.ROOT, "%s %.2fx", r.strategy(),
            r.throughputOpsS() / chosen.throughputOpsS()));
      }
    }
    return (ties.isEmpty() ? "" : "; " + String.join(", ", ties) + " of it: within the noise")
        + (chosen.unsteady() ? ", " + chosen.steadinessMarker() + ": no finding" : "");
  }

  static boolean candidate(StrategyResult r, Set<String> blind) {
    return !blind.contains(r.strategy()) && r.lostUpdates() == 0 && r.lockViolations() == 0
        && r.figure(Verification.VIOLATIONS, 0) == 0 && r.acknowledged() > 0
        && r.throughputOpsS() > 0 && r.errors() <= MAX_ERROR_RATIO * r.acknowledged();
  }

  private static String facts(StrategyResult r) {
    return "0 lost, p99 " + ms(r.latencyMs().p99()) + " ms"
        + (r.conflicts() > 0 ? String.format(Locale.ROOT, ", %.1f%% conflicts",
            100 * r.conflictRatio()) : "");
  }

  private static String times(StrategyResult a, StrategyResult b) {
    return String.format(Locale.ROOT, "%.1fx", a.throughputOpsS() / b.throughputOpsS());
  }

  private static String ms(double v) {
    return String.format(Locale.ROOT, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
  }

  private static String pct(double ratio) {
    return String.format(Locale.ROOT, "%.0f%%", 100 * ratio);
  }
}
