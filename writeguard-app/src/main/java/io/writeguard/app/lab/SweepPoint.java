package io.writeguard.app.lab;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

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
