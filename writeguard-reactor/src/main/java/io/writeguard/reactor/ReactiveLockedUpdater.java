package io.writeguard.reactor;

import io.writeguard.update.Mutator;
import io.writeguard.update.UpdateOutcome;
import io.writeguard.update.LockedUpdater;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * {@link LockedUpdater} for Reactor: each method runs the blocking updater's method on the
 * {@link ReactiveWriteGuard}'s executor when subscribed, with its rules unchanged (lock,
 * fenced read and write, bounded retries, group commit, listeners, exceptions as the Mono's error). Made by
 * {@link ReactiveWriteGuard#locked}. Thread-safe.
 */
public final class ReactiveLockedUpdater {
  private final LockedUpdater updater;
  private final ReactiveWriteGuard guard;

  ReactiveLockedUpdater(LockedUpdater updater, ReactiveWriteGuard guard) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.guard = guard;
  }

  /** {@link LockedUpdater#update}, as a Mono. */
  public Mono<UpdateOutcome> update(Object id, Mutator mutator) {
    return guard.call(() -> updater.update(id, mutator));
  }

  /** {@link LockedUpdater#updateOne}, as a Mono. */
  public Mono<UpdateOutcome> updateOne(Object id, Mutator mutator) {
    return guard.call(() -> updater.updateOne(id, mutator));
  }

  /** The blocking updater underneath. */
  public LockedUpdater blocking() {
    return updater;
  }
}
