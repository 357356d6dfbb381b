package io.writeguard.app.lab;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

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

  /** A numeric figure, or {@code missing} when the result has none by that name. */
  public long figure(String name, long missing) {
    return figures.get(name) instanceof Number n ? n.longValue() : missing;
  }
}
