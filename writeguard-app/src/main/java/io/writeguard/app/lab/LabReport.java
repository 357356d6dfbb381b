package io.writeguard.app.lab;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Optional;

/**
 * A whole lab run: settings, server and one result per strategy, in run order. Serialised
 * with Jackson as the {@code --json} report; its names are stable. Immutable.
 *
 * <p>A sweep over several client counts keeps the single-run shape for its last (usually
 * largest) count, {@code clients} and {@code results}, and adds {@code sweep}: one
 * {@link SweepPoint} per count, in the order given. A single run has no {@code sweep}.
 *
 * @param durationS seconds each strategy was measured for, or null when {@code ops} was set
 * @param ops operations per strategy when {@code --ops} was given, else null
 * @param rounds measured rounds per strategy (results are medians when more than one)
 * @param balances the balance scenarios' numbers (counter, transfer); null for others
 * @param sweep every client count's results when more than one was given, else null
 */
@JsonPropertyOrder({"scenario", "server", "clients", "docs", "duration_s", "ops", "warmup_s",
    "seed", "rounds", "balances", "results", "sweep"})
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
    @JsonProperty("sweep") @JsonInclude(JsonInclude.Include.NON_NULL) List<SweepPoint> sweep) {

  public LabReport {
    results = List.copyOf(results);
    sweep = sweep == null ? null : List.copyOf(sweep);
  }

  /** A single run of one round, without balance settings. */
  public LabReport(String scenario, ServerInfo server, int clients, int docs, Double durationS,
      Long ops, double warmupS, long seed, List<StrategyResult> results) {
    this(scenario, server, clients, docs, durationS, ops, warmupS, seed, results, 1, null, null);
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
        last.results(), rounds, balances, points.size() > 1 ? points : null);
  }
}
