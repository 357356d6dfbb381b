package io.writeguard.reactor;

import io.writeguard.update.TypedDocumentUpdater;
import io.writeguard.update.TypedMutator;
import io.writeguard.update.TypedOutcome;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * Any {@link TypedDocumentUpdater} for Reactor, as {@link ReactiveUpdater} is for the
 * Document-based ones: the blocking typed updater runs on the {@link ReactiveWriteGuard}'s
 * executor when the Mono is subscribed. Made by {@link ReactiveWriteGuard#typed}. Thread-safe.
 *
 * @param <T> the collection's document class
 */
public final class ReactiveTypedDocumentUpdater<T> {
  private final TypedDocumentUpdater<T> updater;
  private final ReactiveWriteGuard guard;

  ReactiveTypedDocumentUpdater(TypedDocumentUpdater<T> updater, ReactiveWriteGuard guard) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.guard = Objects.requireNonNull(guard, "guard");
  }

  /** {@link TypedDocumentUpdater#update}, as a Mono. */
  public Mono<TypedOutcome<T>> update(Object id, TypedMutator<T> mutator) {
    return guard.call(() -> updater.update(id, mutator));
  }

  /** {@link TypedDocumentUpdater#updateOne}, as a Mono. */
  public Mono<TypedOutcome<T>> updateOne(Object id, TypedMutator<T> mutator) {
    return guard.call(() -> updater.updateOne(id, mutator));
  }

  /** The blocking updater underneath. */
  public TypedDocumentUpdater<T> blocking() {
    return updater;
  }
}
