package io.writeguard.reactor;

import io.writeguard.update.TypedMutator;
import io.writeguard.update.TypedOutcome;
import io.writeguard.update.TypedUpdater;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * {@link TypedUpdater} for Reactor, as {@link ReactiveVersionedUpdater} is for the
 * Document-based one: the blocking typed updater runs on the {@link ReactiveWriteGuard}'s
 * executor when the Mono is subscribed. Made by {@link ReactiveWriteGuard#typed}. Thread-safe.
 *
 * @param <T> the collection's document class
 */
public final class ReactiveTypedUpdater<T> {
  private final TypedUpdater<T> updater;
  private final ReactiveWriteGuard guard;

  ReactiveTypedUpdater(TypedUpdater<T> updater, ReactiveWriteGuard guard) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.guard = guard;
  }

  /** {@link TypedUpdater#update}, as a Mono. */
  public Mono<TypedOutcome<T>> update(Object id, TypedMutator<T> mutator) {
    return guard.call(() -> updater.update(id, mutator));
  }

  /** {@link TypedUpdater#updateOne}, as a Mono. */
  public Mono<TypedOutcome<T>> updateOne(Object id, TypedMutator<T> mutator) {
    return guard.call(() -> updater.updateOne(id, mutator));
  }

  /** {@link TypedUpdater#insert}, as a Mono of the value as stored. */
  public Mono<T> insert(T value) {
    return guard.call(() -> updater.insert(value));
  }

  /** The blocking updater underneath. */
  public TypedUpdater<T> blocking() {
    return updater;
  }
}
