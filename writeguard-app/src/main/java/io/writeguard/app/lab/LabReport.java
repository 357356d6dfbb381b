package io.writeguard.app.lab;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Optional;

/**
 * A whole lab run: settings, server and one result per strategy, in run order. Serialised
 * with Jackson as the {@code --json} report; its names are stable. Immutable.
 *
 * @param durationS seconds each strategy was measured for, or null when {@code ops} was set
 * @param ops operations per strategy when {@code --ops} was given, else null
 */
@JsonPropertyOrder({"scenario", "server", "clients", "docs", "duration_s", "ops", "warmup_s",
    "seed", "results"})
public record LabReport(
    @JsonProperty("scenario") String scenario,
    @JsonProperty("server") ServerInfo server,
    @JsonProperty("clients") int clients,
    @JsonProperty("docs") int docs,
    @JsonProperty("duration_s") Double durationS,
    @JsonProperty("ops") Long ops,
    @JsonProperty("warmup_s") double warmupS,
    @JsonProperty("seed") long seed,
    @JsonProperty("results") List<StrategyResult> results) {

  public LabReport {
    results = List.copyOf(results);
  }

  /** The result of {@code strategy}, if it ran. */
  @JsonIgnore
  public Optional<StrategyResult> result(String strategy) {
    return results.stream().filter(r -> r.strategy().equals(strategy)).findFirst();
  }
}
