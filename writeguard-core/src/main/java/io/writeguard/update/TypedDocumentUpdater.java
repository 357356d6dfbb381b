package io.writeguard.update;

import io.writeguard.typed.TypedDocuments;
import java.util.Objects;

/**
 * {@link Updater} for a collection of any class its codecs map: the mutator is shown a decoded
 * {@code T} and returns a new {@code T} or a {@link TypedMutation}; the rules are those of the
 * {@link Updater} underneath. Implemented by {@link TypedUpdater},
 * {@link io.writeguard.adaptive.TypedAdaptiveUpdater} and what {@link LockedUpdater#typed}
 * returns, so swapping strategies is one line here too. Implementations are thread-safe.
 *
 * @param <T> the collection's document class
 */
public interface TypedDocumentUpdater<T> {
  /** Updates document {@code id}; the outcome carries the document as written. */
  TypedOutcome<T> update(Object id, TypedMutator<T> mutator);

  /** Like {@link #update}: no document in the outcome. */
  TypedOutcome<T> updateOne(Object id, TypedMutator<T> mutator);

  /**
   * {@code updater} seen through {@code documents}: each typed mutator runs as
   * {@link TypedMutator#untyped} with {@code versionField}, each outcome is decoded.
   */
  static <T> TypedDocumentUpdater<T> over(Updater updater, TypedDocuments<T> documents,
      String versionField) {
    Objects.requireNonNull(updater, "updater");
    Objects.requireNonNull(documents, "documents");
    Objects.requireNonNull(versionField, "versionField");
    return new TypedDocumentUpdater<>() {
      @Override
      public TypedOutcome<T> update(Object id, TypedMutator<T> mutator) {
        return new TypedOutcome<>(updater.update(id, untyped(mutator)), documents);
      }

      @Override
      public TypedOutcome<T> updateOne(Object id, TypedMutator<T> mutator) {
        return new TypedOutcome<>(updater.updateOne(id, untyped(mutator)), documents);
      }

      private Mutator untyped(TypedMutator<T> mutator) {
        return Objects.requireNonNull(mutator, "mutator").untyped(documents, versionField);
      }

      @Override
      public String toString() {
        return "typed " + updater;
      }
    };
  }
}
