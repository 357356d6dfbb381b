package io.writeguard.internal;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.UUID;

/**
 * The settings every lease-lock builder shares (MongoDB's and Redis'): one default and one check,
 * with one message naming the bad value, per setting, so the two builders cannot drift apart.
 * Each builder keeps its own method per setting and calls these. Not API.
 */
public final class LeaseChecks {
  /** How long a holder keeps a lease without renewing it. */
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
  /** The watchdog renews a held lease after this part of it, unless set otherwise. */
  public static final int RENEWALS_PER_LEASE = 3;
  /** Callers of one process that may hold one lease in turn before it is released. */
  public static final int DEFAULT_HANDOFF_BATCH = 32;
  /** How long one lease may be passed from caller to caller of one process. */
  public static final Duration DEFAULT_HANDOFF_SLICE = Duration.ofMillis(20);

  private LeaseChecks() {}

  /** A lease: positive and at least a millisecond, the unit both stores keep it in. */
  public static Duration lease(Duration lease) {
    Checks.positive("lease", lease);
    if (lease.toMillis() < 1) {
      throw new IllegalArgumentException("lease must be at least 1ms (leases are stored in"
          + " milliseconds), was " + lease);
    }
    return lease;
  }

  public static Duration renewInterval(Duration renewInterval) {
    return Checks.positive("renewInterval", renewInterval);
  }

  /**
   * The watchdog's interval for {@code lease}: {@code renewInterval} when set, else a
   * {@value #RENEWALS_PER_LEASE}rd of the lease; {@code null} without a watchdog.
   *
   * @throws IllegalArgumentException if the interval is not shorter than the lease
   */
  public static Duration watchdogInterval(Duration lease, Duration renewInterval,
      boolean watchdog) {
    if (!watchdog) {
      return null;
    }
    Duration renew = renewInterval != null ? renewInterval : lease.dividedBy(RENEWALS_PER_LEASE);
    if (renew.compareTo(lease) >= 0) {
      throw new IllegalArgumentException("renewInterval must be shorter than the lease ("
          + lease + "), was " + renew);
    }
    return renew;
  }

  public static String owner(String owner) {
    return Checks.notBlank("owner", owner);
  }

  /** This process ({@code pid@host}) and a random suffix: unique per service instance. */
  public static String defaultOwner() {
    return ManagementFactory.getRuntimeMXBean().getName() + "/"
        + UUID.randomUUID().toString().substring(0, 8);
  }

  /** At least 1, and at most {@code max} where the store cannot mint more tokens in a turn. */
  public static int handoffBatch(int handoffBatch, int max, String whyMax) {
    Checks.atLeast("handoffBatch", handoffBatch, 1);
    if (handoffBatch > max) {
      throw new IllegalArgumentException("handoffBatch must be at most " + max + " (" + whyMax
          + "), was " + handoffBatch);
    }
    return handoffBatch;
  }

  public static Duration handoffSlice(Duration handoffSlice) {
    return Checks.positive("handoffSlice", handoffSlice);
  }

  public static int maxKeyLength(int maxKeyLength) {
    return Checks.atLeast("maxKeyLength", maxKeyLength, 1);
  }
}
