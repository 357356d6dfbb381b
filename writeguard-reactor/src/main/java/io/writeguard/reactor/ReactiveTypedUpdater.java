package io.writeguard.reactor;

import io.writeguard.update.TypedMutator;
import io.writeguard.update.TypedOutcome;
import io.writeguard.update.TypedUpdater;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * {@link TypedUpdater} for Reactor: {@link ReactiveTypedDocumentUpdater} (which it runs) plus
 * {@link #insert}. Made by {@link ReactiveWriteGuard#typed(TypedUpdater)}. Thread-safe.
 *
 * @param <T> the collection's document class
 */
public final class ReactiveTypedUpdater<T> {
  private final TypedUpdater<T> updater;
  private final ReactiveWriteGuard guard;
  private final ReactiveTypedDocumentUpdater<T> reactive;

  ReactiveTypedUpdater(TypedUpdater<T> updater, ReactiveWriteGuard guard) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.guard = guard;
    this.reactive = new ReactiveTypedDocumentUpdater<>(updater, guard);
  }

  /** {@link TypedUpdater#update}, as a Mono. */
  public Mono<TypedOutcome<T>> update(Object id, TypedMutator<T> mutator) {
    return reactive.update(id, mutator);
  }

  /** {@link TypedUpdater#updateOne}, as a Mono. */
  public Mono<TypedOutcome<T>> updateOne(Object id, TypedMutator<T> mutator) {
    return reactive.updateOne(id, mutator);
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
