package io.writeguard.spring;

import io.writeguard.update.Mutator;
import io.writeguard.update.UpdateOutcome;
import io.writeguard.update.Updater;
import io.writeguard.update.VersionedUpdater;
import java.util.Objects;

/**
 * A {@link VersionedUpdater} whose failures reach the caller as Spring
 * {@code DataAccessException}s ({@link WriteGuardExceptionTranslator}): a conflict that
 * outlasted the retries is an {@code OptimisticLockingFailureException}, as it is for a Spring
 * Data {@code save} of a stale {@code @Version}ed entity.
 *
 * <p>Thread-safe: one instance serves any number of threads.
 */
public final class DocumentUpdater implements Updater {
  private final VersionedUpdater updater;
  private final TranslatingUpdater translated;

  DocumentUpdater(VersionedUpdater updater, WriteGuardExceptionTranslator translator) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.translated = new TranslatingUpdater(updater, translator);
  }

  /**
   * {@link VersionedUpdater#update}: reads document {@code id}, asks {@code mutator} for the
   * change, writes it if the version did not move, else retries from a fresh read.
   *
   * @throws org.springframework.dao.DataAccessException translated as listed in
   *     {@link WriteGuardExceptionTranslator}
   */
  @Override
  public UpdateOutcome update(Object id, Mutator mutator) {
    return translated.update(id, mutator);
  }

  /** {@link VersionedUpdater#updateOne}, translated like {@link #update}. */
  @Override
  public UpdateOutcome updateOne(Object id, Mutator mutator) {
    return translated.updateOne(id, mutator);
  }

  /** The WriteGuard updater underneath, whose exceptions are not translated. */
  public VersionedUpdater unwrap() {
    return updater;
  }
}
