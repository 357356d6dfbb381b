package io.writeguard.adaptive;

import io.writeguard.internal.Checks;
import java.time.Duration;

/**
 * When the adaptive strategy switches a key to a lock and back. Immutable; thread-safe.
 *
 * <ul>
 *   <li>A key goes to {@link Route#LOCKED} when its conflict ratio over {@code window} exceeds
 *       {@code threshold} with at least {@code minAttempts} attempts seen.
 *   <li>It stays locked for at least {@code minLockedTime}. When that runs out, it goes back to
 *       optimistic only if fewer than {@code calmContention} of its locked updates found another
 *       update of the same key in flight; otherwise the hold is renewed.
 *   <li>A key that turns hot again soon after leaving (within one hold) is held twice as long
 *       next time, up to {@code maxLockedTime}: the hysteresis that stops it from flapping.
 * </ul>
 */
public final class AdaptivePolicy {
  private final double threshold;
  private final long minAttempts;
  private final Duration window;
  private final Duration minLockedTime;
  private final Duration maxLockedTime;
  private final double calmContention;
  private final int maxTrackedKeys;

  private AdaptivePolicy(Builder b) {
    this.threshold = b.threshold;
    this.minAttempts = b.minAttempts;
    this.window = b.window;
    this.minLockedTime = b.minLockedTime;
    this.maxLockedTime = b.maxLockedTime;
    this.calmContention = b.calmContention;
    this.maxTrackedKeys = b.maxTrackedKeys;
  }

  /** threshold 10%, 20 attempts, 5 s window, hold 1 s doubling to 30 s, calm below 10%, 10,000 keys. */
  public static AdaptivePolicy defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public double threshold() {
    return threshold;
  }

  public long minAttempts() {
    return minAttempts;
  }

  public Duration window() {
    return window;
  }

  public Duration minLockedTime() {
    return minLockedTime;
  }

  public Duration maxLockedTime() {
    return maxLockedTime;
  }

  public double calmContention() {
    return calmContention;
  }

  public int maxTrackedKeys() {
    return maxTrackedKeys;
  }

  @Override
  public String toString() {
    return "AdaptivePolicy{threshold=" + threshold + ", minAttempts=" + minAttempts + ", window="
        + window + ", minLockedTime=" + minLockedTime + ", maxLockedTime=" + maxLockedTime
        + ", calmContention=" + calmContention + ", maxTrackedKeys=" + maxTrackedKeys + "}";
  }

  /** Builds an {@link AdaptivePolicy}. Not thread-safe. */
  public static final class Builder {
    private double threshold = 0.10;
    private long minAttempts = 20;
    private Duration window = Duration.ofSeconds(5);
    private Duration minLockedTime = Duration.ofSeconds(1);
    private Duration maxLockedTime = Duration.ofSeconds(30);
    private double calmContention = 0.10;
    private int maxTrackedKeys = 10_000;

    private Builder() {}

    public Builder threshold(double ratio) {
      this.threshold = Checks.between("threshold", ratio, 0.0, 1.0);
      return this;
    }

    public Builder minAttempts(long attempts) {
      this.minAttempts = Checks.atLeast("minAttempts", attempts, 1);
      return this;
    }

    public Builder window(Duration window) {
      this.window = Checks.positive("window", window);
      return this;
    }

    public Builder lockedTime(Duration min, Duration max) {
      this.minLockedTime = Checks.positive("minLockedTime", min);
      this.maxLockedTime = Checks.positive("maxLockedTime", max);
      Checks.notBelow("maxLockedTime", max, "minLockedTime", min);
      return this;
    }

    public Builder calmContention(double ratio) {
      this.calmContention = Checks.between("calmContention", ratio, 0.0, 1.0);
      return this;
    }

    public Builder maxTrackedKeys(int keys) {
      this.maxTrackedKeys = Checks.atLeast("maxTrackedKeys", keys, 1);
      return this;
    }

    public AdaptivePolicy build() {
      return new AdaptivePolicy(this);
    }
  }
}
