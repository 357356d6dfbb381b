package io.writeguard.app.lab;

import java.util.List;

/**
 * One strategy's run of a scenario, on documents created for it alone.
 *
 * <p>The lab calls {@link #prepare} once with the run's strategy, then {@link #client} once per
 * client before the run, drives each returned {@link ClientWorkload} from that client's thread
 * only, calls {@link #verify} once after every client has stopped, and {@link #close} last
 * (also when the run failed). Implementations must be safe for that use: {@link #client} and
 * the workloads' {@code next} may run concurrently with each other.
 */
public interface ScenarioRun<O> extends AutoCloseable {

  /**
   * Called once with the strategy this run measures, before any client starts. A scenario
   * whose starting documents depend on how the strategy stores its data (the counter's
   * layouts) creates them here. Default: nothing.
   */
  default void prepare(Strategy<O> strategy) {}

  /** The operation stream of client {@code index} (0-based), drawn from {@code seed}. */
  ClientWorkload<O> client(int index, long seed);

  /**
   * Reads the documents and counts how much of what the clients recorded as acknowledged is
   * visible. Called after all clients have stopped.
   *
   * @throws com.mongodb.MongoException when the documents cannot be read
   */
  Verification verify(List<? extends ClientWorkload<O>> clients);

  /** Stops whatever the run started besides the clients (a reader thread). Default: nothing. */
  @Override
  default void close() {}
}
