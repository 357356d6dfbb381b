package io.writeguard.app.lab.result;

import io.writeguard.app.lab.result.LabReport.LatencyMs;
import io.writeguard.app.lab.result.LabReport.StrategyResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Folds one strategy's rounds into one result. Speeds are the median of the rounds
 * (throughput, p50, p99), because on a shared machine one round can be several times off and
 * a mean would follow it; counts are summed, so every operation of every round is accounted
 * for and a loss in any round shows. Stateless.
 *
 * <ul>
 *   <li>median: {@code throughput_ops_s}, {@code latency_ms.p50}, {@code latency_ms.p99};
 *   <li>largest: {@code latency_ms.max};
 *   <li>sum: {@code acknowledged}, {@code lost_updates}, {@code errors}, {@code retries},
 *       {@code attempts}, {@code conflicts}, {@code expected}, {@code visible},
 *       {@code elapsed_s}; {@code conflict_ratio} is recomputed from the sums;
 *   <li>lock waits ({@code lock_wait_ms}): median of the p50s and of the p99s, largest max,
 *       over the rounds that took a lock (null when none did); {@code lock_timeouts} and
 *       {@code fenced_rejections} are summed;
 *   <li>figures: numbers are summed, except those named {@code min_*} (lowest of any round)
 *       and {@code max_*} (highest);
 *   <li>added: {@code throughput_by_round} and {@code p99_ms_by_round}, in round order, and
 *       the spread next to each median, {@code throughput_ops_s_range},
 *       {@code p50_ms_range} and {@code p99_ms_range}: {@code [lowest, highest]} of the rounds;
 *   <li>judged: {@code throughput_spread_pct}, how far the farthest round's throughput is from
 *       the median, in percent of it, and {@code unsteady}, true when that is more than
 *       {@link #STEADY_PCT}: the rounds do not agree well enough for the median (or a ratio to
 *       it) to be a finding.
 * </ul>
 */
public final class RoundMedians {
  /** The figure {@code [lowest, highest]} throughput of the rounds, next to the median. */
  public static final String THROUGHPUT_RANGE = "throughput_ops_s_range";
  /** The figure {@code [lowest, highest]} p50 of the rounds, in ms. */
  public static final String P50_RANGE = "p50_ms_range";
  /** The figure {@code [lowest, highest]} p99 of the rounds, in ms. */
  public static final String P99_RANGE = "p99_ms_range";

  /** The figure: the farthest round's distance from the median throughput, in % of it. */
  public static final String SPREAD_PCT = "throughput_spread_pct";
  /** The figure: true when {@link #SPREAD_PCT} is more than {@link #STEADY_PCT}. */
  public static final String UNSTEADY = "unsteady";
  /** Every round within this many percent of the median, or the strategy is unsteady. */
  public static final double STEADY_PCT = 15.0;

  private RoundMedians() {}

  /** One result for {@code rounds} (at least one, all of the same strategy). */
  public static StrategyResult combine(List<StrategyResult> rounds) {
    if (rounds.isEmpty()) {
      throw new IllegalArgumentException("rounds must not be empty");
    }
    if (rounds.size() == 1) {
      return rounds.get(0);
    }
    StrategyResult first = rounds.get(0);
    long acked = 0, lost = 0, errors = 0, retries = 0, attempts = 0, conflicts = 0;
    long expected = 0, visible = 0, lockTimeouts = 0, fenced = 0, violations = 0;
    double elapsed = 0;
    double maxMs = 0;
    String sample = null;
    List<Double> throughput = new ArrayList<>();
    List<Double> p99 = new ArrayList<>();
    List<Double> p50 = new ArrayList<>();
    List<LatencyMs> lockWaits = new ArrayList<>();
    for (StrategyResult r : rounds) {
      if (!r.strategy().equals(first.strategy())) {
        throw new IllegalArgumentException("rounds of different strategies: '"
            + first.strategy() + "' and '" + r.strategy() + "'");
      }
      acked += r.acknowledged();
      lost += r.lostUpdates();
      errors += r.errors();
      retries += r.retries();
      attempts += r.attempts();
      conflicts += r.conflicts();
      expected += r.expected();
      visible += r.visible();
      elapsed += r.elapsedS();
      maxMs = Math.max(maxMs, r.latencyMs().max());
      sample = sample != null ? sample : r.errorSample();
      throughput.add(r.throughputOpsS());
      p50.add(r.latencyMs().p50());
      p99.add(r.latencyMs().p99());
      lockTimeouts += r.lockTimeouts();
      fenced += r.fencedRejections();
      violations += r.lockViolations();
      if (r.lockWaitMs() != null) {
        lockWaits.add(r.lockWaitMs());
      }
    }
    Map<String, Object> figures = figures(rounds);
    figures.put("throughput_by_round", throughput);
    figures.put("p99_ms_by_round", p99);
    figures.put(THROUGHPUT_RANGE, range(throughput));
    figures.put(P50_RANGE, range(p50));
    figures.put(P99_RANGE, range(p99));
    double spread = spreadPct(throughput);
    figures.put(SPREAD_PCT, spread);
    figures.put(UNSTEADY, spread > STEADY_PCT);
    double ratio = attempts == 0 ? 0.0 : Math.round(10_000.0 * conflicts / attempts) / 10_000.0;
    return new StrategyResult(first.strategy(), acked, lost, errors, median(throughput),
        new LatencyMs(median(p50), median(p99), maxMs), ratio, retries, attempts, conflicts,
        expected, visible, Math.round(elapsed * 1000) / 1000.0, sample, lockWait(lockWaits),
        lockTimeouts, fenced, violations, figures);
  }

  /**
   * How far the value farthest from the median is from it, in percent of the median (one
   * decimal); 0 when the median is 0 (nothing ran, nothing to judge).
   */
  static double spreadPct(List<Double> values) {
    double m = median(values);
    if (m <= 0) {
      return 0.0;
    }
    double far = values.stream().mapToDouble(v -> Math.abs(v - m)).max().orElse(0);
    return Math.round(1000 * far / m) / 10.0;
  }

  /** {@code [lowest, highest]} of {@code values}. */
  static List<Double> range(List<Double> values) {
    return List.of(values.stream().mapToDouble(Double::doubleValue).min().orElse(0),
        values.stream().mapToDouble(Double::doubleValue).max().orElse(0));
  }

  /** Lock waits folded like latencies, or null when no round took a lock. */
  private static LatencyMs lockWait(List<LatencyMs> rounds) {
    if (rounds.isEmpty()) {
      return null;
    }
    return new LatencyMs(median(rounds.stream().map(LatencyMs::p50).toList()),
        median(rounds.stream().map(LatencyMs::p99).toList()),
        rounds.stream().mapToDouble(LatencyMs::max).max().orElseThrow());
  }

  /** The median; the mean of the middle two for an even count. */
  static double median(List<Double> values) {
    double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(v);
    int n = v.length;
    double m = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return Math.round(m * 1000) / 1000.0;
  }

  private static Map<String, Object> figures(List<StrategyResult> rounds) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (StrategyResult r : rounds) {
      r.figures().forEach((name, value) -> out.merge(name, value, (a, b) -> fold(name, a, b)));
    }
    return out;
  }

  private static Object fold(String name, Object a, Object b) {
    if (!(a instanceof Number x) || !(b instanceof Number y)) {
      return a;
    }
    boolean whole = !(a instanceof Double || a instanceof Float || b instanceof Double
        || b instanceof Float);
    if (name.startsWith("min_")) {
      return whole ? (Object) Math.min(x.longValue(), y.longValue())
          : (Object) Math.min(x.doubleValue(), y.doubleValue());
    }
    if (name.startsWith("max_")) {
      return whole ? (Object) Math.max(x.longValue(), y.longValue())
          : (Object) Math.max(x.doubleValue(), y.doubleValue());
    }
    return whole ? (Object) (x.longValue() + y.longValue()) : (Object) (x.doubleValue() + y.doubleValue());
  }
}
