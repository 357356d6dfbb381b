package io.writeguard.spring;

import io.writeguard.reactor.ReactiveWriteGuard;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Mono;

/**
 * An entity updater for Reactor: {@link EntityUpdater#update} (optimistic) or
 * {@link LockedEntityUpdater#update} (under the document's lock), run on the
 * {@link ReactiveWriteGuard}'s executor when the Mono is subscribed. The change function runs
 * there too, and may run once per attempt: keep it pure. Made by
 * {@link ReactiveWriteGuardUpdaters}. Thread-safe.
 *
 * @param <T> the entity class
 */
public final class ReactiveEntityUpdater<T> {
  private final ReactiveWriteGuard guard;
  private final BiFunction<Object, UnaryOperator<T>, T> blocking;

  ReactiveEntityUpdater(ReactiveWriteGuard guard, BiFunction<Object, UnaryOperator<T>, T> blocking) {
    this.guard = guard;
    this.blocking = blocking;
  }

  /**
   * A Mono of the entity as written (or as read when {@code change} returned null); its error
   * is the Spring exception the blocking updater throws.
   */
  public Mono<T> update(Object id, UnaryOperator<T> change) {
    return guard.call(() -> blocking.apply(id, change));
  }
}
