package io.writeguard.update;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.random.RandomGenerator;

/**
 * Contention-aware pacing of group commit's retries: the default of {@link VersionedUpdater}.
 * Package-private; the rules and the measurements behind them are in docs/optimistic-updates.md,
 * "Pacing across processes".
 *
 * <p>Why. With group commit a process sends one round (read, then write) at a time per
 * document, so a lost version conflict is a round of another process (or updater) that wrote
 * first. Two rules follow:
 *
 * <ul>
 *   <li><b>Back off by the round, not by a fixed clock.</b> The full-jitter window before retry
 *       {@code n} is the lost round's own duration (read to the write's answer, about one round
 *       of the winner) times {@code 2^(n-1)}, never above the policy's window for that retry.
 *       The first retry comes within about one round of the winner, where the policy's 5 ms
 *       would let it run several rounds ahead; a policy without backoff stays without.
 *   <li><b>A round lost to another writer's progress is not charged.</b> When the probe after
 *       the missed write shows the version moved past the one read, another writer's write
 *       landed: the system made progress, and such a lost round does not count against
 *       {@link RetryPolicy#maxAttempts()}. It is bounded by the call's deadline instead (5 s by
 *       default), which bounds the caller's time whoever wins. A round that missed without the
 *       version moving (a guard of a combined write, a legacy document) is charged as before.
 * </ul>
 *
 * A retry is started only if its backoff plus two rounds like the lost one end before the
 * deadline: a call that keeps losing gives up with {@link RetriesExhaustedException} rather
 * than have its last round cut by the deadline.
 *
 * <p>Stateless, so immutable and thread-safe, and it keeps nothing per document.
 */
final class ContentionPacing implements RetryPacing {
  private final RetryPolicy policy;

  ContentionPacing(RetryPolicy policy) {
    this.policy = Objects.requireNonNull(policy, "policy");
  }

  @Override
  public Duration afterConflict(long roundNanos, int retry, RandomGenerator random) {
    Objects.requireNonNull(random, "random");
    int n = Math.max(1, retry);
    long cap = policy.backoffCap(n).toNanos();
    long round = Math.max(0, roundNanos);
    int shift = Math.min(n - 1, 62);
    // round << shift fits exactly when round <= Long.MAX_VALUE >> shift
    long window = round > (Long.MAX_VALUE >> shift) ? cap : Math.min(cap, round << shift);
    return Duration.ofNanos(window == 0 ? 0 : random.nextLong(0, window + 1));
  }

  @Override
  public boolean chargesConflict(OptionalLong read, OptionalLong seen) {
    return read.isEmpty() || seen.isEmpty() || seen.getAsLong() <= read.getAsLong();
  }

  /**
   * Two rounds like the lost one: a call that keeps losing to other writers runs until near its
   * deadline, and its last round must end before it.
   */
  @Override
  public long reserveNanos(long roundNanos) {
    long round = Math.max(0, roundNanos);
    return round > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * round;
  }

  @Override
  public String toString() {
    return "ContentionPacing{" + policy + "}";
  }
}
