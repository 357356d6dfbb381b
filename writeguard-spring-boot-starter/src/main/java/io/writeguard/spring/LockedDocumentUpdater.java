package io.writeguard.spring;

import io.writeguard.update.LockedUpdater;
import io.writeguard.update.Mutator;
import io.writeguard.update.UpdateOutcome;
import java.util.Objects;

/**
 * A {@link LockedUpdater} whose failures reach the caller as Spring
 * {@code DataAccessException}s ({@link WriteGuardExceptionTranslator}): a lock not had in time
 * is a {@code CannotAcquireLockException}, a lock store that fails a
 * {@code DataAccessResourceFailureException}, a write refused by the fence after the retries a
 * {@code PessimisticLockingFailureException}.
 *
 * <p>Thread-safe: one instance serves any number of threads.
 */
public final class LockedDocumentUpdater {
  private final LockedUpdater updater;
  private final WriteGuardExceptionTranslator translator;

  LockedDocumentUpdater(LockedUpdater updater, WriteGuardExceptionTranslator translator) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.translator = Objects.requireNonNull(translator, "translator");
  }

  /**
   * {@link LockedUpdater#update}: takes document {@code id}'s lock, reads it, asks
   * {@code mutator} for the change, writes it, releases the lock.
   *
   * @throws org.springframework.dao.DataAccessException translated as listed in
   *     {@link WriteGuardExceptionTranslator}
   */
  public UpdateOutcome update(Object id, Mutator mutator) {
    return translator.translating(() -> updater.update(id, mutator));
  }

  /** {@link LockedUpdater#updateOne}, translated like {@link #update}. */
  public UpdateOutcome updateOne(Object id, Mutator mutator) {
    return translator.translating(() -> updater.updateOne(id, mutator));
  }

  /** The WriteGuard updater underneath, whose exceptions are not translated. */
  public LockedUpdater unwrap() {
    return updater;
  }
}
