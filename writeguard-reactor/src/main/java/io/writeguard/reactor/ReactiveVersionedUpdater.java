package io.writeguard.reactor;

import io.writeguard.update.VersionedUpdater;
import io.writeguard.update.Mutator;
import io.writeguard.update.UpdateOutcome;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * {@link VersionedUpdater} for Reactor: a {@link ReactiveUpdater} that keeps the blocking
 * updater's own type. Made by {@link ReactiveWriteGuard#versioned}. Thread-safe.
 *
 * @deprecated use {@link ReactiveWriteGuard#updater} and {@link ReactiveUpdater}, which take
 *     any {@link io.writeguard.update.Updater}; this class delegates to one and is kept so that
 *     code written against it still compiles.
 */
@Deprecated
public final class ReactiveVersionedUpdater {
  private final VersionedUpdater updater;
  private final ReactiveUpdater reactive;

  ReactiveVersionedUpdater(VersionedUpdater updater, ReactiveWriteGuard guard) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.reactive = guard.updater(updater);
  }

  /** {@link VersionedUpdater#update}, as a Mono. */
  public Mono<UpdateOutcome> update(Object id, Mutator mutator) {
    return reactive.update(id, mutator);
  }

  /** {@link VersionedUpdater#updateOne}, as a Mono. */
  public Mono<UpdateOutcome> updateOne(Object id, Mutator mutator) {
    return reactive.updateOne(id, mutator);
  }

  /** The blocking updater underneath. */
  public VersionedUpdater blocking() {
    return updater;
  }
}
