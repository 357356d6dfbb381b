package io.writeguard.update;

import java.util.Objects;

/**
 * What a {@link TypedMutator} wants written: a whole new {@code T}, or any {@link Mutation}
 * (update operators, a {@code Document} replacement, nothing).
 *
 * <p>A returned {@code T} is encoded with the collection's codecs and written as
 * {@link Mutation#replace}, so the same rules hold: its version must be the one read, or
 * {@code null}/absent (the library writes version + 1; another value is refused with a
 * {@link io.writeguard.version.VersionFieldException} and nothing is written), and its
 * {@code _id} must be the document's. Fields the class does not map are removed from the
 * stored document, as with any replacement.
 *
 * <p>Immutable as far as this library goes; thread-safe if the wrapped value is not changed
 * by its owner.
 *
 * @param <T> the collection's document class
 */
public sealed interface TypedMutation<T> permits TypedMutation.Replace, TypedMutation.Change {

  /** Replace the document with {@code value} (version handled by the library). */
  static <T> TypedMutation<T> replace(T value) {
    return new Replace<>(value);
  }

  /** Write {@code mutation} ({@link Mutation#update}, {@link Mutation#none()}, ...). */
  static <T> TypedMutation<T> of(Mutation mutation) {
    return new Change<>(mutation);
  }

  /** Write nothing. */
  static <T> TypedMutation<T> none() {
    return new Change<>(Mutation.none());
  }

  /** A whole new value. */
  record Replace<T>(T value) implements TypedMutation<T> {
    public Replace {
      Objects.requireNonNull(value, "value");
    }
  }

  /** A document-level mutation. */
  record Change<T>(Mutation mutation) implements TypedMutation<T> {
    public Change {
      Objects.requireNonNull(mutation, "mutation");
    }
  }
}
