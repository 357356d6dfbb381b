package io.writeguard.bench;

import java.util.Arrays;
import java.util.List;

/**
 * One contender over all its rounds, folded as the lab folds rounds: throughput, p50, p99,
 * allocation, CPU and MongoDB commands per call are the median of the rounds (one noisy round on a shared
 * machine does not move it); counts are summed, so a loss in any round shows; the per-round
 * throughputs are kept.
 */
record ContenderSummary(String contender, long acked, long lost, long writtenNotAcked,
    long exhausted, long errors, long retries, double throughputOpsS, double p50Ms, double p99Ms,
    double maxMs, List<Double> throughputByRound, String errorSample, double allocBytesPerCall,
    double cpuUsPerCall, double mongoCommandsPerCall) {

  static ContenderSummary of(String contender, List<RoundResult> rounds) {
    if (rounds.isEmpty()) {
      throw new IllegalArgumentException("no rounds for " + contender);
    }
    return new ContenderSummary(contender,
        rounds.stream().mapToLong(RoundResult::acked).sum(),
        rounds.stream().mapToLong(RoundResult::lost).sum(),
        rounds.stream().mapToLong(RoundResult::writtenNotAcked).sum(),
        rounds.stream().mapToLong(RoundResult::exhausted).sum(),
        rounds.stream().mapToLong(RoundResult::errors).sum(),
        rounds.stream().mapToLong(RoundResult::retries).sum(),
        median(rounds.stream().mapToDouble(RoundResult::throughputOpsS).toArray()),
        median(rounds.stream().mapToDouble(RoundResult::p50Ms).toArray()),
        median(rounds.stream().mapToDouble(RoundResult::p99Ms).toArray()),
        rounds.stream().mapToDouble(RoundResult::maxMs).max().orElse(0),
        rounds.stream().map(r -> round(r.throughputOpsS())).toList(),
        rounds.stream().map(RoundResult::errorSample).filter(s -> s != null).findFirst()
            .orElse(null),
        median(rounds.stream().mapToDouble(RoundResult::allocBytesPerCall).toArray()),
        median(rounds.stream().mapToDouble(RoundResult::cpuUsPerCall).toArray()),
        median(rounds.stream().mapToDouble(RoundResult::mongoCommandsPerCall).toArray()));
  }

  /** The median; the mean of the middle two for an even count. */
  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  private static double round(double value) {
    return Math.round(value * 10) / 10.0;
  }
}
