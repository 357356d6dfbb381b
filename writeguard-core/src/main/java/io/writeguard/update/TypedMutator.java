package io.writeguard.update;

import io.writeguard.typed.TypedDocuments;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The "modify" step of a typed read-modify-write: given the document decoded as a {@code T},
 * says what to write. Same contract as {@link Mutator}: <strong>pure</strong>, called once
 * per attempt (or per batch member under group commit) with a freshly decoded {@code T}, and
 * an exception it throws ends the update with nothing written and reaches the caller
 * unchanged. The value it is given is its own copy: a mutable POJO may be changed and
 * returned.
 *
 * @param <T> the collection's document class
 */
@FunctionalInterface
public interface TypedMutator<T> {
  /**
   * @param current the document as just read, decoded by the collection's codecs
   * @return what to write; {@link TypedMutation#none()} to write nothing
   */
  TypedMutation<T> mutate(T current);

  /**
   * This mutator as a {@link Mutator} on the {@code Document}s of {@code documents}: it is
   * shown the decoded document and its answer becomes a {@link Mutation}; a returned {@code T}
   * becomes {@link Mutation#replace} of its encoding, under that method's rules (version
   * absent or as read, same {@code _id}).
   */
  default Mutator untyped(TypedDocuments<T> documents, String versionField) {
    Objects.requireNonNull(documents, "documents");
    return current -> {
      TypedMutation<T> result = mutate(documents.decode(current));
      if (result == null) {
        throw new NullPointerException("the typed mutator returned null; return"
            + " TypedMutation.none() to write nothing");
      }
      if (result instanceof TypedMutation.Replace<T> replace) {
        return Mutation.replace(documents.encode(replace.value(), versionField));
      }
      return ((TypedMutation.Change<T>) result).mutation();
    };
  }

  /** A mutator that always replaces the document with {@code change}'s result. */
  static <T> TypedMutator<T> replacing(UnaryOperator<T> change) {
    Objects.requireNonNull(change, "change");
    return current -> TypedMutation.replace(change.apply(current));
  }
}
