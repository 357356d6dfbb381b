package io.writeguard.update;

/**
 * Update one document by id with a pure {@link Mutator}: the shape every WriteGuard updater
 * shares, so an application can hold one field of this type and choose the strategy where it
 * builds it.
 *
 * <pre>{@code
 * Updater accounts = VersionedUpdater.builder(collection).build();           // optimistic
 * Updater accounts = LockedUpdater.builder(collection, locks).build();       // under a lease lock
 * Updater accounts = AdaptiveUpdater.builder(versioned, locks).build();      // routed by contention
 * accounts.update(id, current -> Mutation.update(inc("balance", 5)));
 * }</pre>
 *
 * <p>What every implementation promises: the mutator is shown the document as just read and may
 * run once per attempt (keep it pure); each acknowledged update is in the database, written
 * with the version checked and raised; an exception the mutator throws reaches the caller
 * unchanged, with nothing written; failures are {@link UpdateFailedException} and its
 * subclasses, or the strategy's own (a lock not had in time is
 * {@link io.writeguard.lock.LockTimeoutException}). The strategies differ in how they wait:
 * see each class. Implementations are thread-safe.
 *
 * <p>Implemented by {@link VersionedUpdater}, {@link LockedUpdater} and
 * {@link io.writeguard.adaptive.AdaptiveUpdater}; the typed twin is
 * {@link TypedDocumentUpdater}. Wrappers (Reactor's {@code ReactiveUpdater}, the Spring
 * starter's translating updaters) take this type.
 */
public interface Updater {
  /**
   * Updates document {@code id} and returns the outcome with the document as written (or as
   * read, when the mutator wrote nothing).
   */
  UpdateOutcome update(Object id, Mutator mutator);

  /** Like {@link #update}, without the document in the outcome: one less document on the wire. */
  UpdateOutcome updateOne(Object id, Mutator mutator);
}
