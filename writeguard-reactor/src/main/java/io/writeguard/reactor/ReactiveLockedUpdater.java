package io.writeguard.reactor;

import io.writeguard.update.LockedUpdater;
import io.writeguard.update.Mutator;
import io.writeguard.update.UpdateOutcome;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * {@link LockedUpdater} for Reactor: a {@link ReactiveUpdater} that keeps the blocking
 * updater's own type. Made by {@link ReactiveWriteGuard#locked}. Thread-safe.
 *
 * @deprecated use {@link ReactiveWriteGuard#updater} and {@link ReactiveUpdater}, which take
 *     any {@link io.writeguard.update.Updater}; this class delegates to one and is kept so that
 *     code written against it still compiles.
 */
@Deprecated
public final class ReactiveLockedUpdater {
  private final LockedUpdater updater;
  private final ReactiveUpdater reactive;

  ReactiveLockedUpdater(LockedUpdater updater, ReactiveWriteGuard guard) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.reactive = guard.updater(updater);
  }

  /** {@link LockedUpdater#update}, as a Mono. */
  public Mono<UpdateOutcome> update(Object id, Mutator mutator) {
    return reactive.update(id, mutator);
  }

  /** {@link LockedUpdater#updateOne}, as a Mono. */
  public Mono<UpdateOutcome> updateOne(Object id, Mutator mutator) {
    return reactive.updateOne(id, mutator);
  }

  /** The blocking updater underneath. */
  public LockedUpdater blocking() {
    return updater;
  }
}
