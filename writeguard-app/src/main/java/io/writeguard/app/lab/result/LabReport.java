package io.writeguard.app.lab.result;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.writeguard.app.lab.api.BalanceSettings;
import io.writeguard.app.lab.api.Scenario.Verification;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A whole lab run: settings, server and one result per strategy, in run order. Serialised
 * with Jackson as the {@code --json} report; its names are stable. Immutable.
 *
 * <p>A sweep over several client counts keeps the single-run shape for its last (usually
 * largest) count, {@code clients} and {@code results}, and adds {@code sweep}: one
 * {@link SweepPoint} per count, in the order given. A single run has no {@code sweep}.
 *
 * <p>This file holds the whole result format: {@link ServerInfo}, {@link SweepPoint},
 * {@link StrategyResult} and its {@link LatencyMs}.
 *
 * @param durationS seconds each strategy was measured for, or null when {@code ops} was set
 * @param ops operations per strategy when {@code --ops} was given, else null
 * @param rounds measured rounds per strategy (results are medians when more than one)
 * @param balances the balance scenarios' numbers (counter, transfer); null for others
 * @param sweep every client count's results when more than one was given, else null
 * @param groupCommit whether strategies that can combine concurrent updates of one document did
 * @param processes how many processes the clients were spread over ({@code --processes}); with
 *     several counts, the last
 * @param byProcesses every process count's results when {@code --processes} listed more than
 *     one ({@code 1,2,4}), in the order given, else null; {@code processes} and
 *     {@code results} are then the last one's
 */
@JsonPropertyOrder({"scenario", "server", "clients", "docs", "duration_s", "ops", "warmup_s",
    "seed", "rounds", "group_commit", "processes", "balances", "results", "sweep",
    "by_processes"})
public record LabReport(
    @JsonProperty("scenario") String scenario,
    @JsonProperty("server") ServerInfo server,
    @JsonProperty("clients") int clients,
    @JsonProperty("docs") int docs,
    @JsonProperty("duration_s") Double durationS,
    @JsonProperty("ops") Long ops,
    @JsonProperty("warmup_s") double warmupS,
    @JsonProperty("seed") long seed,
    @JsonProperty("results") List<StrategyResult> results,
    @JsonProperty("rounds") int rounds,
    @JsonProperty("balances") @JsonInclude(JsonInclude.Include.NON_NULL) BalanceSettings balances,
    @JsonProperty("sweep") @JsonInclude(JsonInclude.Include.NON_NULL) List<SweepPoint> sweep,
    @JsonProperty("group_commit") boolean groupCommit,
    @JsonProperty("processes") int processes,
    @JsonProperty("by_processes") @JsonInclude(JsonInclude.Include.NON_NULL)
        List<ProcessesPoint> byProcesses) {

  public LabReport {
    results = List.copyOf(results);
    sweep = sweep == null ? null : List.copyOf(sweep);
    byProcesses = byProcesses == null ? null : List.copyOf(byProcesses);
    if (processes < 1) {
      throw new IllegalArgumentException("processes must be >= 1, was " + processes);
    }
  }

  /** A report of one process count. */
  public LabReport(String scenario, ServerInfo server, int clients, int docs, Double durationS,
      Long ops, double warmupS, long seed, List<StrategyResult> results, int rounds,
      BalanceSettings balances, List<SweepPoint> sweep, boolean groupCommit, int processes) {
    this(scenario, server, clients, docs, durationS, ops, warmupS, seed, results, rounds,
        balances, sweep, groupCommit, processes, null);
  }

  /** A report of clients that all ran in one process. */
  public LabReport(String scenario, ServerInfo server, int clients, int docs, Double durationS,
      Long ops, double warmupS, long seed, List<StrategyResult> results, int rounds,
      BalanceSettings balances, List<SweepPoint> sweep, boolean groupCommit) {
    this(scenario, server, clients, docs, durationS, ops, warmupS, seed, results, rounds,
        balances, sweep, groupCommit, 1);
  }

  /** This report with its clients spread over {@code processes} processes. */
  public LabReport withProcesses(int processes) {
    return new LabReport(scenario, server, clients, docs, durationS, ops, warmupS, seed, results,
        rounds, balances, sweep, groupCommit, processes, byProcesses);
  }

  /**
   * This report with {@code points} as its results by process count; the last point's
   * process count and results become the report's own.
   */
  public LabReport withProcessCounts(List<ProcessesPoint> points) {
    ProcessesPoint last = points.get(points.size() - 1);
    return new LabReport(scenario, server, clients, docs, durationS, ops, warmupS, seed,
        last.results(), rounds, balances, sweep, groupCommit, last.processes(),
        points.size() > 1 ? points : null);
  }

  /**
   * The results of every strategy at one process count of {@code --processes 1,2,4}, with the
   * same total clients. Immutable.
   */
  @JsonPropertyOrder({"processes", "clients", "results"})
  public record ProcessesPoint(
      @JsonProperty("processes") int processes,
      @JsonProperty("clients") int clients,
      @JsonProperty("results") List<StrategyResult> results) {
    public ProcessesPoint {
      if (processes < 1) {
        throw new IllegalArgumentException("processes must be >= 1, was " + processes);
      }
      results = List.copyOf(results);
    }
  }

  /** A single run of one round, without balance settings. */
  public LabReport(String scenario, ServerInfo server, int clients, int docs, Double durationS,
      Long ops, double warmupS, long seed, List<StrategyResult> results) {
    this(scenario, server, clients, docs, durationS, ops, warmupS, seed, results, 1, null, null,
        true);
  }

  /** The result of {@code strategy}, if it ran. */
  @JsonIgnore
  public Optional<StrategyResult> result(String strategy) {
    return results.stream().filter(r -> r.strategy().equals(strategy)).findFirst();
  }

  /** Every client count's results: the sweep, or this run alone. */
  @JsonIgnore
  public List<SweepPoint> points() {
    return sweep != null ? sweep : List.of(new SweepPoint(clients, results));
  }

  /** This report with {@code points} as its sweep; the last point becomes the main result. */
  public LabReport withSweep(List<SweepPoint> points) {
    SweepPoint last = points.get(points.size() - 1);
    return new LabReport(scenario, server, last.clients(), docs, durationS, ops, warmupS, seed,
        last.results(), rounds, balances, points.size() > 1 ? points : null, groupCommit,
        processes, byProcesses);
  }

  /**
   * The results of every strategy at one client count of a sweep ({@code --clients 1,4,16}).
   * Immutable.
   */
  @JsonPropertyOrder({"clients", "results"})
  public record SweepPoint(
      @JsonProperty("clients") int clients,
      @JsonProperty("results") List<StrategyResult> results) {
    public SweepPoint {
      results = List.copyOf(results);
    }
  }

  /**
   * The server a lab run measured. {@code kind} is {@code embedded} (the in-JVM server) or
   * {@code external}. Immutable.
   */
  public record ServerInfo(@JsonProperty("kind") String kind, @JsonProperty("version") String version) {
    public static final String EMBEDDED = "embedded";
    public static final String EXTERNAL = "external";

    public ServerInfo {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(version, "version");
    }
  }

  /**
   * One strategy's measured result, as printed in the table and written to the JSON report.
   * The JSON names are a published format: later versions add fields, never rename them.
   * Immutable.
   *
   * @param strategy the strategy's name
   * @param acknowledged operations the server acknowledged
   * @param lostUpdates {@code expected - visible}: acknowledged effects missing at the end
   * @param errors operations that were not acknowledged (failed, retries exhausted, ...)
   * @param throughputOpsS acknowledged operations per second of the measured run
   * @param latencyMs latency of acknowledged operations, retries included
   * @param conflictRatio conflicts per attempt (0 for strategies that never see a conflict)
   * @param retries attempts that were repeated after a conflict or a retryable error
   * @param attempts attempts made (one per operation for strategies that never retry)
   * @param conflicts attempts that found the document changed under them
   * @param expected what must be visible at the end (scenario-specific, e.g. distinct marks)
   * @param visible how much of {@code expected} is visible at the end
   * @param elapsedS measured wall time in seconds
   * @param errorSample the message of one error, or null when there were none
   * @param lockWaitMs how long operations waited for locks they got, or null for strategies that
   *     took no lock
   * @param lockTimeouts lock waits that ran out (each also an error)
   * @param fencedRejections writes MongoDB refused because a newer lock holder had written
   * @param lockViolations for a strategy that holds an exclusive lock around each operation:
   *     conflicts and fenced rejections it met while holding it, each a sign that the lock (or
   *     its fence) let two writers in at once; any fails the run. 0 for other strategies
   * @param figures scenario-specific figures ({@link Verification#figures()}) and, over several
   *     rounds, the per-round values; written as further fields of the result after the ones
   *     above
   */
  @JsonPropertyOrder({"strategy", "acknowledged", "lost_updates", "errors", "throughput_ops_s",
      "latency_ms", "conflict_ratio", "retries", "attempts", "conflicts", "expected", "visible",
      "elapsed_s", "error_sample", "lock_wait_ms", "lock_timeouts", "fenced_rejections",
      "lock_violations"})
  public record StrategyResult(
      @JsonProperty("strategy") String strategy,
      @JsonProperty("acknowledged") long acknowledged,
      @JsonProperty("lost_updates") long lostUpdates,
      @JsonProperty("errors") long errors,
      @JsonProperty("throughput_ops_s") double throughputOpsS,
      @JsonProperty("latency_ms") LatencyMs latencyMs,
      @JsonProperty("conflict_ratio") double conflictRatio,
      @JsonProperty("retries") long retries,
      @JsonProperty("attempts") long attempts,
      @JsonProperty("conflicts") long conflicts,
      @JsonProperty("expected") long expected,
      @JsonProperty("visible") long visible,
      @JsonProperty("elapsed_s") double elapsedS,
      @JsonProperty("error_sample") String errorSample,
      @JsonProperty("lock_wait_ms") LatencyMs lockWaitMs,
      @JsonProperty("lock_timeouts") long lockTimeouts,
      @JsonProperty("fenced_rejections") long fencedRejections,
      @JsonProperty("lock_violations") long lockViolations,
      @JsonIgnore Map<String, Object> figures) {

    public StrategyResult {
      figures = Collections.unmodifiableMap(
          new LinkedHashMap<>(Objects.requireNonNull(figures, "figures")));
    }

    /** A result without lock violations. */
    public StrategyResult(String strategy, long acknowledged, long lostUpdates, long errors,
        double throughputOpsS, LatencyMs latencyMs, double conflictRatio, long retries,
        long attempts, long conflicts, long expected, long visible, double elapsedS,
        String errorSample, LatencyMs lockWaitMs, long lockTimeouts, long fencedRejections,
        Map<String, Object> figures) {
      this(strategy, acknowledged, lostUpdates, errors, throughputOpsS, latencyMs, conflictRatio,
          retries, attempts, conflicts, expected, visible, elapsedS, errorSample, lockWaitMs,
          lockTimeouts, fencedRejections, 0, figures);
    }

    /** A result of a strategy that took no lock, without scenario-specific figures. */
    public StrategyResult(String strategy, long acknowledged, long lostUpdates, long errors,
        double throughputOpsS, LatencyMs latencyMs, double conflictRatio, long retries,
        long attempts, long conflicts, long expected, long visible, double elapsedS,
        String errorSample) {
      this(strategy, acknowledged, lostUpdates, errors, throughputOpsS, latencyMs, conflictRatio,
          retries, attempts, conflicts, expected, visible, elapsedS, errorSample, null, 0, 0, 0,
          Map.of());
    }

    /** The figures as JSON fields of the result itself. */
    @JsonAnyGetter
    Map<String, Object> jsonFigures() {
      return figures;
    }

    /** This result with {@code more} figures added after its own (replacing same-named ones). */
    public StrategyResult withFigures(Map<String, Object> more) {
      Map<String, Object> all = new LinkedHashMap<>(figures);
      all.putAll(more);
      return new StrategyResult(strategy, acknowledged, lostUpdates, errors, throughputOpsS,
          latencyMs, conflictRatio, retries, attempts, conflicts, expected, visible, elapsedS,
          errorSample, lockWaitMs, lockTimeouts, fencedRejections, lockViolations, all);
    }

    /**
     * True when its rounds spread more than {@link RoundMedians#STEADY_PCT} around their
     * median ({@link RoundMedians#UNSTEADY}): its speed, and any ratio to it, is no finding.
     * False for a single round, which cannot be judged.
     */
    @JsonIgnore
    public boolean unsteady() {
      return Boolean.TRUE.equals(figures.get(RoundMedians.UNSTEADY));
    }

    /**
     * How far its farthest round is from the median throughput, in percent of the median
     * ({@link RoundMedians#SPREAD_PCT}); empty for a single round.
     */
    @JsonIgnore
    public Optional<Double> spreadPct() {
      return figures.get(RoundMedians.SPREAD_PCT) instanceof Number n
          ? Optional.of(n.doubleValue()) : Optional.empty();
    }

    /**
     * {@code [UNSTEADY +-23%]} when {@link #unsteady()}, else "": the table, the closing note,
     * the recommendation and the HTML page put it next to the name, so a ratio the rounds do not
     * agree on is never read as a finding.
     */
    @JsonIgnore
    public String steadinessMarker() {
      return unsteady() ? String.format(Locale.ROOT, "[UNSTEADY +-%.0f%%]",
          spreadPct().orElse(0.0)) : "";
    }

    /** A numeric figure, or {@code missing} when the result has none by that name. */
    public long figure(String name, long missing) {
      return figures.get(name) instanceof Number n ? n.longValue() : missing;
    }

    /**
     * What makes this result no result: {@code LOST 2,294} when acknowledged updates are
     * missing, {@code LOCK VIOL. 3} when an exclusive lock let two writers in,
     * {@code VIOLATIONS 1} when an invariant broke (comma-separated when several), or "" for
     * a clean result. The table, the closing note and the HTML page mark such a strategy with
     * it, so a fast strategy that lost updates never reads as a winner.
     */
    @JsonIgnore
    public String flags() {
      List<String> flags = new ArrayList<>();
      if (lostUpdates > 0) {
        flags.add(String.format(Locale.ROOT, "LOST %,d", lostUpdates));
      }
      if (lockViolations > 0) {
        flags.add(String.format(Locale.ROOT, "LOCK VIOL. %,d", lockViolations));
      }
      long violations = figure(Verification.VIOLATIONS, 0);
      if (violations > 0) {
        flags.add(String.format(Locale.ROOT, "VIOLATIONS %,d", violations));
      }
      return String.join(", ", flags);
    }
  }

  /** Latency percentiles of acknowledged operations, in milliseconds. Immutable. */
  public record LatencyMs(
      @JsonProperty("p50") double p50,
      @JsonProperty("p99") double p99,
      @JsonProperty("max") double max) {}
}
