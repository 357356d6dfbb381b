package io.writeguard.app.lab;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Latency percentiles of acknowledged operations, in milliseconds. Immutable. */
public record LatencyMs(
    @JsonProperty("p50") double p50,
    @JsonProperty("p99") double p99,
    @JsonProperty("max") double max) {}
