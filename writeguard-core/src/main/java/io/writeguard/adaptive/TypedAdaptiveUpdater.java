package io.writeguard.adaptive;

import io.writeguard.typed.TypedDocuments;
import io.writeguard.update.Mutator;
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
public final class TypedAdaptiveUpdater<T> {
  private final AdaptiveUpdater updater;
  private final TypedDocuments<T> documents;
  private final String versionField;

  TypedAdaptiveUpdater(AdaptiveUpdater updater, TypedDocuments<T> documents,
      String versionField) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.documents = Objects.requireNonNull(documents, "documents");
    this.versionField = Objects.requireNonNull(versionField, "versionField");
  }

  /** As {@link AdaptiveUpdater#update}; the outcome carries the document as written. */
  public TypedOutcome<T> update(Object id, TypedMutator<T> mutator) {
    return new TypedOutcome<>(
        updater.update(id, untyped(mutator)), documents);
  }

  /** As {@link AdaptiveUpdater#updateOne}: no document in the outcome. */
  public TypedOutcome<T> updateOne(Object id, TypedMutator<T> mutator) {
    return new TypedOutcome<>(
        updater.updateOne(id, untyped(mutator)), documents);
  }

  private Mutator untyped(TypedMutator<T> mutator) {
    return Objects.requireNonNull(mutator, "mutator").untyped(documents, versionField);
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
