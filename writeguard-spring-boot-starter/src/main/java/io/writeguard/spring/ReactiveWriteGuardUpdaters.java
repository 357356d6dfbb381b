package io.writeguard.spring;

import io.writeguard.reactor.ReactiveUpdater;
import io.writeguard.reactor.ReactiveWriteGuard;
import io.writeguard.update.Updater;
import java.util.Objects;

/**
 * {@link WriteGuardUpdaters} for WebFlux and Reactor: each updater runs the blocking one of the
 * same name (same collection, converter, version field, {@code writeguard.updater.*} policy,
 * listener beans, lock service, Spring exceptions) on the {@link ReactiveWriteGuard}'s bounded
 * executor when its Mono is subscribed, never on the subscribing thread. Errors arrive as
 * {@code Mono.error} of the translated Spring exception; a full executor is a
 * {@code TransientDataAccessResourceException}. Thread-safe.
 */
public final class ReactiveWriteGuardUpdaters {
  private final WriteGuardUpdaters updaters;
  private final ReactiveWriteGuard guard;

  public ReactiveWriteGuardUpdaters(WriteGuardUpdaters updaters, ReactiveWriteGuard guard) {
    this.updaters = Objects.requireNonNull(updaters, "updaters");
    this.guard = Objects.requireNonNull(guard, "guard");
  }

  /** {@link WriteGuardUpdaters#documents(String)}, reactive. */
  public ReactiveDocumentUpdater documents(String collectionName) {
    return new ReactiveDocumentUpdater(updaters.documents(collectionName), guard);
  }

  /** {@link WriteGuardUpdaters#documents(Class)}, reactive. */
  public ReactiveDocumentUpdater documents(Class<?> entityType) {
    return new ReactiveDocumentUpdater(updaters.documents(entityType), guard);
  }

  /** {@link WriteGuardUpdaters#entities(Class)}, reactive. */
  public <T> ReactiveEntityUpdater<T> entities(Class<T> entityType) {
    EntityUpdater<T> blocking = updaters.entities(entityType);
    return new ReactiveEntityUpdater<>(guard, blocking::update);
  }

  /** {@link WriteGuardUpdaters#lockedEntities(Class)}, reactive. */
  public <T> ReactiveEntityUpdater<T> lockedEntities(Class<T> entityType) {
    LockedEntityUpdater<T> blocking = updaters.lockedEntities(entityType);
    return new ReactiveEntityUpdater<>(guard, blocking::update);
  }

  /** {@link WriteGuardUpdaters#lockedEntities(Class, String)}, reactive. */
  public <T> ReactiveEntityUpdater<T> lockedEntities(Class<T> entityType, String service) {
    LockedEntityUpdater<T> blocking = updaters.lockedEntities(entityType, service);
    return new ReactiveEntityUpdater<>(guard, blocking::update);
  }

  /**
   * {@code updater}, any strategy, run on the facade's executor with its failures translated
   * ({@link WriteGuardUpdaters#translating}).
   */
  public ReactiveUpdater updater(Updater updater) {
    return guard.updater(updaters.translating(updater));
  }

  /** The blocking updaters underneath. */
  public WriteGuardUpdaters blocking() {
    return updaters;
  }

  /** The facade whose executor runs the calls. */
  public ReactiveWriteGuard guard() {
    return guard;
  }
}
