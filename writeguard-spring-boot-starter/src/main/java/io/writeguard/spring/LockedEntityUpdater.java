package io.writeguard.spring;

import java.util.function.UnaryOperator;

/**
 * Read-modify-write of one mapped entity under the document's lease lock (core's
 * {@code LockedUpdater}), mapped exactly as {@link EntityUpdater} maps it: the same converter,
 * id conversion, version rules, replacement and carried-over fields. Made by
 * {@link WriteGuardUpdaters#lockedEntities}.
 *
 * <p>Each update takes the lock of {@code <collection>:<_id>}, reads the document, raises its
 * fence to the lock's token (so a holder paused past its lease is refused by MongoDB itself),
 * applies the change, writes it with the version checked and raised, and releases the lock.
 * Optimistic updates of the same document ({@link EntityUpdater}) may run at the same time:
 * each sees the other's write as a version conflict and retries, so neither is lost. Callers of
 * this process updating the same document at the same time share one lock hold (group commit).
 *
 * <p>The change function must be pure, as for {@link EntityUpdater}: it may run more than once.
 * Thread-safe: one instance serves any number of threads.
 */
public final class LockedEntityUpdater<T> {
  private final EntityMapping<T> mapping;
  private final LockedDocumentUpdater documents;

  LockedEntityUpdater(EntityMapping<T> mapping, LockedDocumentUpdater documents) {
    this.mapping = mapping;
    this.documents = documents;
  }

  /**
   * Applies {@code change} to entity {@code id} under its lock and returns the entity as
   * written (with its new version), or as read when {@code change} returned {@code null}.
   *
   * @throws org.springframework.dao.CannotAcquireLockException if the lock was not had in time
   *     (nothing written)
   * @throws org.springframework.dao.DataAccessException otherwise translated as listed in
   *     {@link WriteGuardExceptionTranslator}; an exception thrown by {@code change} reaches the
   *     caller unchanged
   * @throws IllegalArgumentException if {@code change} returned an entity with another id
   */
  public T update(Object id, UnaryOperator<T> change) {
    return mapping.update(id, change, documents::update);
  }

  /** The locked document updater underneath, for changes better said with update operators. */
  public LockedDocumentUpdater documents() {
    return documents;
  }
}
