package io.writeguard.update;

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

  /** A mutator that always replaces the document with {@code change}'s result. */
  static <T> TypedMutator<T> replacing(UnaryOperator<T> change) {
    Objects.requireNonNull(change, "change");
    return current -> TypedMutation.replace(change.apply(current));
  }
}
