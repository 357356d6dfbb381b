package io.writeguard.update;

import io.writeguard.internal.Backoff;
import io.writeguard.internal.Checks;
import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * How often and how long a versioned update retries, and how it backs off between attempts.
 *
 * <p>Bounded twice: by {@link #maxAttempts()} (the first attempt counts) and by
 * {@link #deadline()}, measured from the start of the call; a retry whose backoff would end
 * at or past the deadline is not started. Backoff is exponential with <em>full jitter</em>:
 * before retry {@code n} (n = 1 after the first failed attempt) the caller sleeps a uniformly
 * random time in {@code [0, min(maxBackoff, baseBackoff * 2^(n-1))]}. Full jitter, rather than
 * a fixed or "equal jitter" delay, spreads writers that collided at the same moment over the
 * whole window, so they do not collide again in lock step; it does the least total work of
 * the usual schemes under contention. A {@code baseBackoff} of zero retries at once (the lab's
 * "no backoff" baseline).
 *
 * <p>{@link VersionedUpdater} with group commit paces a lost version conflict by contention
 * unless told not to ({@link VersionedUpdater.Builder#contentionPacing}): the window is scaled
 * to the lost round's duration (never above the one described here), and a round lost to
 * another writer's write, which moved the version on, does not count against
 * {@link #maxAttempts()}; the {@link #deadline()} bounds those rounds.
 *
 * <p>{@link #retryTransientErrors()} lets errors that are certain not to have written anything
 * (no server selectable, connection refused, "not primary", a failed read) be retried like a
 * conflict. Errors after which the write may or may not have been applied are never retried:
 * see {@link WriteOutcomeUnknownException}.
 *
 * <p>Immutable and thread-safe; the {@link Builder} is not.
 */
public final class RetryPolicy {
  private static final Duration MAX_DURATION = Duration.ofHours(1);
  private static final RetryPolicy DEFAULTS = builder().build();

  private final int maxAttempts;
  private final Duration deadline;
  private final Duration baseBackoff;
  private final Duration maxBackoff;
  private final Backoff backoff;
  private final boolean retryTransientErrors;

  private RetryPolicy(Builder b) {
    this.maxAttempts = b.maxAttempts;
    this.deadline = b.deadline;
    this.baseBackoff = b.baseBackoff;
    this.maxBackoff = b.maxBackoff;
    this.backoff = Backoff.exponential(b.baseBackoff, b.maxBackoff);
    this.retryTransientErrors = b.retryTransientErrors;
  }

  /** 10 attempts, 5 s deadline, backoff 5 ms doubling up to 500 ms, transient errors retried. */
  public static RetryPolicy defaults() {
    return DEFAULTS;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this policy's values. */
  public Builder toBuilder() {
    return new Builder()
        .maxAttempts(maxAttempts)
        .deadline(deadline)
        .backoff(baseBackoff, maxBackoff)
        .retryTransientErrors(retryTransientErrors);
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  public Duration deadline() {
    return deadline;
  }

  public Duration baseBackoff() {
    return baseBackoff;
  }

  public Duration maxBackoff() {
    return maxBackoff;
  }

  public boolean retryTransientErrors() {
    return retryTransientErrors;
  }

  /** The upper bound of the jitter window before retry {@code retry} (counts from 1). */
  public Duration backoffCap(int retry) {
    Checks.atLeast("retry", retry, 1);
    return backoff.ceiling(retry);
  }

  /** A full-jitter backoff before retry {@code retry}: uniform in {@code [0, backoffCap]}. */
  public Duration backoff(int retry, RandomGenerator random) {
    Objects.requireNonNull(random, "random");
    Checks.atLeast("retry", retry, 1);
    return Duration.ofNanos(backoff.fullJitterNanos(retry, random));
  }

  @Override
  public String toString() {
    return "RetryPolicy{maxAttempts=" + maxAttempts + ", deadline=" + deadline.toMillis()
        + "ms, backoff=" + baseBackoff.toMillis() + ".." + maxBackoff.toMillis()
        + "ms full jitter, retryTransientErrors=" + retryTransientErrors + "}";
  }

  /** Builds a {@link RetryPolicy}, checking every value; not thread-safe. */
  public static final class Builder {
    private int maxAttempts = 10;
    private Duration deadline = Duration.ofSeconds(5);
    private Duration baseBackoff = Duration.ofMillis(5);
    private Duration maxBackoff = Duration.ofMillis(500);
    private boolean retryTransientErrors = true;

    private Builder() {}

    /** Attempts in all, the first included; at least 1 (1 means never retry). */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = Checks.atLeast("maxAttempts", maxAttempts, 1);
      return this;
    }

    /** The time budget of one call, from its start; positive, at most one hour. */
    public Builder deadline(Duration deadline) {
      this.deadline = atMostAnHour("deadline", Checks.positive("deadline", deadline));
      return this;
    }

    /**
     * The jitter window starts at {@code base} and doubles up to {@code max}; both zero or
     * positive, {@code max >= base}, at most one hour.
     */
    public Builder backoff(Duration base, Duration max) {
      Checks.notNegative("baseBackoff", base);
      Checks.notNegative("maxBackoff", max);
      atMostAnHour("maxBackoff", max);
      Checks.notBelow("maxBackoff", max, "baseBackoff", base);
      this.baseBackoff = base;
      this.maxBackoff = max;
      return this;
    }

    /** Whether errors known not to have written anything are retried (default true). */
    public Builder retryTransientErrors(boolean retryTransientErrors) {
      this.retryTransientErrors = retryTransientErrors;
      return this;
    }

    public RetryPolicy build() {
      return new RetryPolicy(this);
    }

    private static Duration atMostAnHour(String name, Duration value) {
      if (value.compareTo(MAX_DURATION) > 0) {
        throw new IllegalArgumentException(name + " must be <= " + MAX_DURATION + ", was " + value);
      }
      return value;
    }
  }
}
