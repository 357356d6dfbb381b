package io.writeguard.app.lab;

import io.writeguard.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How long the strategies of a run warm up before anything is measured: in passes of short
 * unmeasured slices, every strategy once per pass in plan order, until each strategy's speed
 * stops rising (two slices in a row, each less than {@link #RISE} faster than the one before),
 * at least {@link #MIN_SLICES} slices and at most {@code cap} per strategy.
 *
 * <p>Why: the driver and (by default) the server run in the lab's JVM, and the JIT keeps
 * compiling them for tens of seconds under load. A fixed warm-up of one second per strategy
 * left round 1 measuring a slower program than round 3 (issue 32: rounds two to three times
 * apart). Passes over all strategies warm the code they share (driver, server) under every
 * strategy's load, and each strategy's own path until it runs at its speed. Not thread-safe.
 */
final class WarmUp {
  /** A slice this much faster than the one before says the strategy is still warming up. */
  static final double RISE = 0.05;
  /**
   * Slices every strategy runs whatever its speeds say: a slice is short and noisy, and the
   * JIT is busiest in the first seconds, so two slices alone can look flat while the code is
   * still being compiled.
   */
  static final int MIN_SLICES = 3;
  /** The longest slice; shorter when {@code cap} is under {@link #MIN_SLICES} of them. */
  static final Duration MAX_SLICE = Duration.ofSeconds(1);

  private final Duration slice;
  private final int maxSlices;

  /** A warm-up of at most {@code cap} per strategy; zero for none. */
  WarmUp(Duration cap) {
    Checks.notNegative("cap", cap);
    this.slice = sliceOf(cap);
    this.maxSlices = cap.isZero() ? 0
        : (int) Math.max(MIN_SLICES, cap.toNanos() / slice.toNanos());
  }

  /**
   * The length of one slice under {@code cap}: {@link #MAX_SLICE}, or a {@link #MIN_SLICES}th
   * of a shorter cap.
   */
  static Duration sliceOf(Duration cap) {
    Duration half = cap.dividedBy(MIN_SLICES);
    return half.compareTo(MAX_SLICE) < 0 ? half : MAX_SLICE;
  }

  Duration slice() {
    return slice;
  }

  int maxSlices() {
    return maxSlices;
  }

  /** Runs one unmeasured slice of a strategy and answers its acknowledged operations per second. */
  @FunctionalInterface
  interface Slice {
    double run(int strategy, Duration length);
  }

  /** Hears that a pass beyond the first {@link #MIN_SLICES} will run {@code slices} slices. */
  @FunctionalInterface
  interface Extra {
    void slices(int slices);
  }

  /**
   * Warms {@code strategies} strategies; returns each one's slice speeds in order (empty lists
   * when the cap is zero).
   */
  List<List<Double>> run(int strategies, Slice runner, Extra extra) {
    List<List<Double>> speeds = new ArrayList<>();
    for (int k = 0; k < strategies; k++) {
      speeds.add(new ArrayList<>());
    }
    for (int pass = 1; pass <= maxSlices; pass++) {
      List<Integer> due = new ArrayList<>();
      for (int k = 0; k < strategies; k++) {
        if (stillRising(speeds.get(k))) {
          due.add(k);
        }
      }
      if (due.isEmpty()) {
        break;
      }
      if (pass > MIN_SLICES) {
        extra.slices(due.size());
      }
      for (int k : due) {
        speeds.get(k).add(runner.run(k, slice));
      }
    }
    return speeds;
  }

  /**
   * True while a strategy with these slice speeds still warms up: fewer than
   * {@link #MIN_SLICES} slices, or one of its last two slices more than {@link #RISE} faster
   * than the slice before it. Two slices, not one: on a busy machine one slow slice in the
   * middle of a rise looks flat (a run on a loaded machine stopped a strategy at 2,742 -> 2,169
   * ops/s, and its rounds then went 4,521 -> 5,561 -> 6,570).
   */
  static boolean stillRising(List<Double> speeds) {
    int n = speeds.size();
    if (n < MIN_SLICES) {
      return true;
    }
    return rose(speeds, n - 1) || rose(speeds, n - 2);
  }

  private static boolean rose(List<Double> speeds, int i) {
    return speeds.get(i) > speeds.get(i - 1) * (1 + RISE);
  }
}
