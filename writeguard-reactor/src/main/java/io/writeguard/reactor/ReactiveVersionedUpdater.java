package io.writeguard.reactor;

import io.writeguard.update.Mutator;
import io.writeguard.update.UpdateOutcome;
import io.writeguard.update.VersionedUpdater;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * {@link VersionedUpdater} for Reactor: each method runs the blocking updater's method on the
 * {@link ReactiveWriteGuard}'s executor when subscribed, with its rules unchanged (version
 * filter, bounded retries, group commit, listeners, exceptions as the Mono's error). Made by
 * {@link ReactiveWriteGuard#versioned}. Thread-safe.
 */
public final class ReactiveVersionedUpdater {
  private final VersionedUpdater updater;
  private final ReactiveWriteGuard guard;

  ReactiveVersionedUpdater(VersionedUpdater updater, ReactiveWriteGuard guard) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.guard = guard;
  }

  /** {@link VersionedUpdater#update}, as a Mono. */
  public Mono<UpdateOutcome> update(Object id, Mutator mutator) {
    return guard.call(() -> updater.update(id, mutator));
  }

  /** {@link VersionedUpdater#updateOne}, as a Mono. */
  public Mono<UpdateOutcome> updateOne(Object id, Mutator mutator) {
    return guard.call(() -> updater.updateOne(id, mutator));
  }

  /** The blocking updater underneath. */
  public VersionedUpdater blocking() {
    return updater;
  }
}
