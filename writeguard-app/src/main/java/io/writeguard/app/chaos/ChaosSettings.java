package io.writeguard.app.chaos;

import io.writeguard.app.readinfo.MarkReadDeps;
import java.time.Duration;

/**
 * The knobs of a chaos run and the bounds derived from them. Immutable and thread-safe.
 *
 * <p>The bound of one operation is what the library documents for it: its own budget (the lock
 * wait for the lock strategies, the retry deadline for {@code optimistic} and {@code
 * adaptive}, nothing for {@code atomic}), plus two MongoDB round trips that may each stall for
 * the longest the client allows (a read timeout, once more for the driver's single retry, plus
 * server selection), plus {@link #SLACK} for a loaded machine.
 *
 * @param mongoTimeout the MongoDB client's connect, read and pool wait (--mongo-timeout)
 * @param lease the lease of both lock services; the holder is paused for longer than this
 * @param lockWait how long a lock strategy waits for the lock
 * @param blackHole how long MongoDB is black-holed
 * @param phase how long the load runs before and after each fault
 */
record ChaosSettings(Duration mongoTimeout, Duration lease, Duration lockWait,
    Duration blackHole, Duration phase, boolean shortRun) {

  /** Server selection: {@link io.writeguard.app.cli.MongoTarget}'s default. */
  static final Duration SERVER_SELECTION = Duration.ofSeconds(3);
  /** Room for a loaded 2-core machine (GC, scheduling); never a performance claim. */
  static final Duration SLACK = Duration.ofSeconds(5);

  static ChaosSettings of(boolean shortRun, Duration mongoTimeout) {
    return new ChaosSettings(mongoTimeout, Duration.ofSeconds(2), Duration.ofSeconds(5),
        Duration.ofSeconds(shortRun ? 12 : 25), Duration.ofSeconds(shortRun ? 3 : 6), shortRun);
  }

  /** Longest one MongoDB operation may take when the server stalls: 2 reads + selection. */
  Duration stalledRoundTrip() {
    return mongoTimeout.multipliedBy(2).plus(SERVER_SELECTION);
  }

  /** The documented bound of one operation of {@code strategy} (see the class comment). */
  Duration bound(String strategy) {
    Duration own = switch (strategy) {
      case "mongo-lock", "redis-lock" -> lockWait;
      case "optimistic", "adaptive" -> MarkReadDeps.DEFAULT_RETRY.deadline().plus(
          strategy.equals("adaptive") ? lockWait : Duration.ZERO);
      default -> Duration.ZERO;
    };
    return own.plus(stalledRoundTrip().multipliedBy(2)).plus(SLACK);
  }
}
