package io.writeguard.reactor;

import io.writeguard.update.Mutator;
import io.writeguard.update.UpdateOutcome;
import io.writeguard.update.Updater;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * Any {@link Updater} for Reactor (versioned, locked, adaptive, or the application's own): each
 * method runs the blocking updater's method on the {@link ReactiveWriteGuard}'s executor when
 * subscribed, never on the subscribing thread, with the updater's rules unchanged (its version
 * filter, lock, retries, group commit, listeners); its exceptions are the Mono's error. Made by
 * {@link ReactiveWriteGuard#updater}. Thread-safe.
 */
public final class ReactiveUpdater {
  private final Updater updater;
  private final ReactiveWriteGuard guard;

  ReactiveUpdater(Updater updater, ReactiveWriteGuard guard) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.guard = Objects.requireNonNull(guard, "guard");
  }

  /** {@link Updater#update}, as a Mono. */
  public Mono<UpdateOutcome> update(Object id, Mutator mutator) {
    return guard.call(() -> updater.update(id, mutator));
  }

  /** {@link Updater#updateOne}, as a Mono. */
  public Mono<UpdateOutcome> updateOne(Object id, Mutator mutator) {
    return guard.call(() -> updater.updateOne(id, mutator));
  }

  /** The blocking updater underneath. */
  public Updater blocking() {
    return updater;
  }
}
