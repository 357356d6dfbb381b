package io.writeguard.app.lab.report;

import io.writeguard.app.lab.api.Scenario.Verification;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

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

  private Recommendation() {}

  /**
   * The recommendation for {@code results} (one client count), one line each, starting with
   * {@code recommendation:}; {@code blind} names the strategies that exist to show the problem.
   */
  public static List<String> lines(List<StrategyResult> results, Set<String> blind) {
    List<StrategyResult> candidates = results.stream()
        .filter(r -> candidate(r, blind)).toList();
    Comparator<StrategyResult> fastest =
        Comparator.comparingDouble(StrategyResult::throughputOpsS);
    Optional<StrategyResult> noRead = candidates.stream()
        .filter(r -> NO_READ.contains(r.strategy())).max(fastest);
    Optional<StrategyResult> read = candidates.stream()
        .filter(r -> !NO_READ.contains(r.strategy())).max(fastest);
    Optional<StrategyResult> lock = candidates.stream()
        .filter(r -> DISTRIBUTED_LOCKS.contains(r.strategy())).max(fastest);
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
          + ", " + facts(a)));
      read.ifPresent(r -> parts.add(r.strategy() + (noRead.isPresent() ? " if you must read ("
          : " for this change (") + facts(r)
          + (ONE_PROCESS.contains(r.strategy()) ? ", one process only" : "") + ")"));
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
