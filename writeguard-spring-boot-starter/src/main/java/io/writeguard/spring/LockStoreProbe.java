package io.writeguard.spring;

/**
 * Checks that one lock store answers, for {@link WriteGuardHealthIndicator}. The starter makes
 * one per lock service it configures; an application may add its own beans.
 * Implementations are thread-safe.
 */
public interface LockStoreProbe {

  /** The name in the health details: {@code mongo}, {@code redis}. */
  String name();

  /**
   * Returns a short description of the store (collection, server) when it answers.
   *
   * @throws RuntimeException when it does not
   */
  String check();
}
