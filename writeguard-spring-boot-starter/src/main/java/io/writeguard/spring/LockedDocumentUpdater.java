package io.writeguard.spring;

import io.writeguard.update.LockedUpdater;
import io.writeguard.update.Mutator;
import io.writeguard.update.UpdateOutcome;
import io.writeguard.update.Updater;
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
public final class LockedDocumentUpdater implements Updater {
  private final LockedUpdater updater;
  private final TranslatingUpdater translated;

  LockedDocumentUpdater(LockedUpdater updater, WriteGuardExceptionTranslator translator) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.translated = new TranslatingUpdater(updater, translator);
  }

  /**
   * {@link LockedUpdater#update}: takes document {@code id}'s lock, reads it, asks
   * {@code mutator} for the change, writes it, releases the lock.
   *
   * @throws org.springframework.dao.DataAccessException translated as listed in
   *     {@link WriteGuardExceptionTranslator}
   */
  @Override
  public UpdateOutcome update(Object id, Mutator mutator) {
    return translated.update(id, mutator);
  }

  /** {@link LockedUpdater#updateOne}, translated like {@link #update}. */
  @Override
  public UpdateOutcome updateOne(Object id, Mutator mutator) {
    return translated.updateOne(id, mutator);
  }

  /** The WriteGuard updater underneath, whose exceptions are not translated. */
  public LockedUpdater unwrap() {
    return updater;
  }
}
