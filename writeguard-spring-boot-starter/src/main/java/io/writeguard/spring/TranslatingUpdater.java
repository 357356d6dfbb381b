package io.writeguard.spring;

import io.writeguard.update.Mutator;
import io.writeguard.update.UpdateOutcome;
import io.writeguard.update.Updater;
import java.util.Objects;

/**
 * Any WriteGuard {@link Updater} (versioned, locked, adaptive) whose failures reach the caller
 * as Spring {@code DataAccessException}s ({@link WriteGuardExceptionTranslator}); an exception
 * the mutator throws reaches the caller unchanged. The starter's one translating wrapper:
 * {@link DocumentUpdater} and {@link LockedDocumentUpdater} run through it. Made by
 * {@link WriteGuardUpdaters#translating}.
 *
 * <p>Thread-safe: one instance serves any number of threads.
 */
public final class TranslatingUpdater implements Updater {
  private final Updater updater;
  private final WriteGuardExceptionTranslator translator;

  TranslatingUpdater(Updater updater, WriteGuardExceptionTranslator translator) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.translator = Objects.requireNonNull(translator, "translator");
  }

  /**
   * {@link Updater#update}, translated.
   *
   * @throws org.springframework.dao.DataAccessException translated as listed in
   *     {@link WriteGuardExceptionTranslator}
   */
  @Override
  public UpdateOutcome update(Object id, Mutator mutator) {
    return translator.translating(() -> updater.update(id, mutator));
  }

  /** {@link Updater#updateOne}, translated like {@link #update}. */
  @Override
  public UpdateOutcome updateOne(Object id, Mutator mutator) {
    return translator.translating(() -> updater.updateOne(id, mutator));
  }

  /** The WriteGuard updater underneath, whose exceptions are not translated. */
  public Updater unwrap() {
    return updater;
  }
}
