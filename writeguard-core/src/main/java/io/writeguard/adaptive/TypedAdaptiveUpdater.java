package io.writeguard.adaptive;

import io.writeguard.typed.TypedDocuments;
import io.writeguard.update.TypedDocumentUpdater;
import io.writeguard.update.TypedMutator;
import io.writeguard.update.TypedOutcome;
import java.util.Objects;

/**
 * An {@link AdaptiveUpdater} for a {@code MongoCollection<T>} of any class its codecs map:
 * the same routes, locks and group commit, run over the Document-based adaptive updater, with
 * the mutator shown a decoded {@code T} (see {@link io.writeguard.update.TypedUpdater}).
 *
 * <p>Made by {@link AdaptiveUpdater#typed}. Thread-safe.
 *
 * @param <T> the collection's document class
 */
public final class TypedAdaptiveUpdater<T> implements TypedDocumentUpdater<T> {
  private final AdaptiveUpdater updater;
  private final TypedDocumentUpdater<T> typed;

  TypedAdaptiveUpdater(AdaptiveUpdater updater, TypedDocuments<T> documents,
      String versionField) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.typed = TypedDocumentUpdater.over(updater, documents, versionField);
  }

  /** As {@link AdaptiveUpdater#update}; the outcome carries the document as written. */
  @Override
  public TypedOutcome<T> update(Object id, TypedMutator<T> mutator) {
    return typed.update(id, mutator);
  }

  /** As {@link AdaptiveUpdater#updateOne}: no document in the outcome. */
  @Override
  public TypedOutcome<T> updateOne(Object id, TypedMutator<T> mutator) {
    return typed.updateOne(id, mutator);
  }

  /** The route {@code id}'s next update would take. */
  public Route routeOf(Object id) {
    return updater.routeOf(id);
  }

  /** The Document-based adaptive updater this one runs. */
  public AdaptiveUpdater untyped() {
    return updater;
  }
}
