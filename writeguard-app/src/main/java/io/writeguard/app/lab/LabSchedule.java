package io.writeguard.app.lab;

import io.writeguard.app.lab.plan.LabSettings;
import io.writeguard.internal.Checks;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * The phases of a whole lab run, to tell how long it will take and how much of it is left:
 * at every client count, every strategy's warm-up slices ({@link WarmUp}), then its rounds.
 * A warm-up runs at least {@link WarmUp#MIN_SLICES} slices per strategy; the slices it adds
 * while a strategy's speed still rises are announced with {@link #moreWarmups}.
 *
 * <p>The time left is the phases still to run times what such a phase has taken so far (its
 * set-up and counting included), plus what the current phase still has to go. Before any
 * phase of a kind has finished, a timed phase is taken at its configured length; a phase
 * counted by {@code --ops} has no length until one has run, and the estimate is unknown
 * until then. Used by the runner's thread only; not thread-safe.
 */
public final class LabSchedule {
  private final long warmupNanos;
  private final long measureNanos;
  private int warmups;
  private final int measures;
  private int warmupsDone;
  private int measuresDone;
  private long warmupWall;
  private long measureWall;

  /**
   * The schedule of {@code strategies} strategies under {@code settings} at
   * {@code clientCounts} client counts.
   */
  public LabSchedule(LabSettings settings, int strategies, int clientCounts) {
    Checks.atLeast("strategies", strategies, 1);
    Checks.atLeast("clientCounts", clientCounts, 1);
    this.warmupNanos = WarmUp.sliceOf(settings.warmup()).toNanos();
    this.measureNanos = settings.duration() == null ? 0 : settings.duration().toNanos();
    this.warmups = warmupNanos == 0 ? 0 : strategies * clientCounts * WarmUp.MIN_SLICES;
    this.measures = strategies * settings.rounds() * clientCounts;
  }

  /** Measured rounds of the whole run, every strategy and client count together. */
  public int measuredRounds() {
    return measures;
  }

  /**
   * Warm-up (its least) and measuring time of the whole run by the settings, without set-up
   * and counting; empty when the rounds are counted by {@code --ops}.
   */
  public Optional<Duration> planned() {
    return measureNanos == 0 ? Optional.empty()
        : Optional.of(Duration.ofNanos(warmups * warmupNanos + measures * measureNanos));
  }

  /** A warm-up pass will run {@code slices} more slices than planned so far. */
  void moreWarmups(int slices) {
    warmups += slices;
  }

  /** A phase ended after {@code wallNanos}, set-up and counting included. */
  void finished(boolean warmup, long wallNanos) {
    if (warmup) {
      warmupsDone++;
      warmupWall += wallNanos;
    } else {
      measuresDone++;
      measureWall += wallNanos;
    }
  }

  /**
   * The estimated time left while a phase of kind {@code warmup} has been running for
   * {@code elapsedNanos}; negative when it cannot be told yet.
   */
  long timeLeftNanos(boolean warmup, long elapsedNanos) {
    long perWarmup = warmupsDone > 0 ? warmupWall / warmupsDone : warmupNanos;
    long perMeasure = measuresDone > 0 ? measureWall / measuresDone : measureNanos;
    if (perMeasure == 0 && measures - measuresDone > 0) {
      return -1; // counted rounds, none finished yet: no idea how long one takes
    }
    int warmupsAfter = Math.max(0, warmups - warmupsDone - (warmup ? 1 : 0));
    int measuresAfter = Math.max(0, measures - measuresDone - (warmup ? 0 : 1));
    long current = Math.max(0, (warmup ? perWarmup : perMeasure) - elapsedNanos);
    return warmupsAfter * perWarmup + measuresAfter * perMeasure + current;
  }

  /** The estimated time left between two phases; negative when it cannot be told yet. */
  long timeLeftNanos() {
    long perWarmup = warmupsDone > 0 ? warmupWall / warmupsDone : warmupNanos;
    long perMeasure = measuresDone > 0 ? measureWall / measuresDone : measureNanos;
    int measuresLeft = Math.max(0, measures - measuresDone);
    if (perMeasure == 0 && measuresLeft > 0) {
      return -1;
    }
    return Math.max(0, warmups - warmupsDone) * perWarmup + measuresLeft * perMeasure;
  }

  /** {@code 45s}, {@code 1m05s}, {@code 1h02m}: rounded to the second, for progress lines. */
  public static String format(long nanos) {
    long s = Math.max(0, Math.round(nanos / 1e9));
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    return String.format(Locale.ROOT, "%dh%02dm", s / 3600, s % 3600 / 60);
  }
}
