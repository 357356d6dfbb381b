package io.writeguard.app.chaos;

import java.time.Duration;

/**
 * The knobs of a chaos run and the bounds derived from them. Immutable and thread-safe.
 *
 * <p>The bound of one operation is what the library documents for it: the caller's deadline
 * ({@code deadline}, the same for every strategy: each operation runs under it, and each
 * {@code serve} request under serve's request deadline) plus {@link #MARGIN}, which holds the
 * library's write grace and the HTTP round trip. Every MongoDB operation, Redis command and
 * lock wait gets the time left, so a stalled server cannot hold an operation past it.
 *
 * @param mongoTimeout the MongoDB client's connect, read and pool wait (--mongo-timeout)
 * @param lease the lease of both lock services; the holder is paused for longer than this
 * @param lockWait how long a lock strategy waits for the lock
 * @param blackHole how long MongoDB is black-holed
 * @param phase how long the load runs before and after each fault
 * @param deadline each operation's deadline, and the request deadline of the serve JVMs
 */
record ChaosSettings(Duration mongoTimeout, Duration lease, Duration lockWait,
    Duration blackHole, Duration phase, boolean shortRun, Duration deadline) {

  /** The default {@code --deadline}: serve's default request deadline. */
  static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(10);
  /** Past the deadline: the library's write grace (0.25 s) and an HTTP round trip. */
  static final Duration MARGIN = Duration.ofSeconds(1);

  /** Room for a loaded 2-core machine (GC, scheduling); never a performance claim. */
  static final Duration SLACK = Duration.ofSeconds(5);

  static ChaosSettings of(boolean shortRun, Duration mongoTimeout) {
    return of(shortRun, mongoTimeout, DEFAULT_DEADLINE);
  }

  static ChaosSettings of(boolean shortRun, Duration mongoTimeout, Duration deadline) {
    return new ChaosSettings(mongoTimeout, Duration.ofSeconds(2), Duration.ofSeconds(5),
        Duration.ofSeconds(shortRun ? 12 : 25), Duration.ofSeconds(shortRun ? 3 : 6), shortRun,
        deadline);
  }


  /**
   * The documented bound of one operation of {@code strategy}: its deadline + {@link #MARGIN},
   * whatever the strategy (see the class comment).
   */
  Duration bound(String strategy) {
    return deadline.plus(MARGIN);
  }
}
