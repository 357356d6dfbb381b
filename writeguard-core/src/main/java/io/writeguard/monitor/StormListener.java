package io.writeguard.monitor;

/**
 * Told when a collection enters or leaves a retry storm. Called at most once per transition;
 * must be thread-safe and quick.
 */
public interface StormListener {
  StormListener NOOP = new StormListener() {};

  default void onStormStarted(OperationScope scope, double ratio, long attempts, String advice) {}

  default void onStormEnded(OperationScope scope, double ratio) {}
}
