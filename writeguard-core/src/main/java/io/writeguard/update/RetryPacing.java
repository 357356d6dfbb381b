package io.writeguard.update;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.random.RandomGenerator;

/**
 * When an optimistic update reads again after a lost version conflict, and whether that lost
 * round counts against {@link RetryPolicy#maxAttempts()}. Package-private; {@link UpdateLoop}
 * and {@link BatchUpdate} ask their loop's pacing. A transient error always backs off by the
 * policy alone, and the policy's deadline bounds every call whatever the pacing says.
 */
interface RetryPacing {
  /**
   * The backoff before retry {@code retry} (from 1) of a round that lost a version conflict
   * after {@code roundNanos} (from its read to its write's answer).
   */
  Duration afterConflict(long roundNanos, int retry, RandomGenerator random);

  /**
   * Whether a lost round counts against {@link RetryPolicy#maxAttempts()}: it read version
   * {@code read} and, after its write missed, found {@code seen} (either empty: unknown or a
   * legacy document).
   */
  boolean chargesConflict(OptionalLong read, OptionalLong seen);

  /**
   * Time kept free before the deadline when a retry after a round of {@code roundNanos} is
   * considered: a retry whose backoff plus this would reach the deadline is not started, so
   * that a call that keeps losing gives up cleanly instead of having its last round cut by the
   * deadline (an unknown outcome, if it was writing).
   */
  long reserveNanos(long roundNanos);

  /** The policy's full-jitter exponential backoff, and every attempt counts. */
  static RetryPacing blind(RetryPolicy policy) {
    return new RetryPacing() {
      @Override
      public Duration afterConflict(long roundNanos, int retry, RandomGenerator random) {
        return policy.backoff(retry, random);
      }

      @Override
      public boolean chargesConflict(OptionalLong read, OptionalLong seen) {
        return true;
      }

      @Override
      public long reserveNanos(long roundNanos) {
        return 0; // the policy's rule alone: a backoff that ends before the deadline
      }

      @Override
      public String toString() {
        return "blind(" + policy + ")";
      }
    };
  }
}
