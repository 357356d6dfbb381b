package io.writeguard.update;

import org.bson.Document;

/**
 * Turns the current state of a document into the change to make: the "modify" step of
 * read-modify-write.
 *
 * <p><strong>Must be pure.</strong> The updater calls it once per attempt, each time with a
 * freshly read document, and throws every result away except the one whose write wins. So it
 * may run several times for one update: it must not send mail, charge cards, bump counters
 * or change shared state. Side effects belong after the update returns, or behind an
 * idempotency key. It may change the {@code current} document it is given (a private copy
 * decoded for this attempt) and return it as a replacement.
 *
 * <p>Called on the thread that called the updater. An exception it throws ends the update at
 * once (nothing is written) and reaches the caller unchanged.
 */
@FunctionalInterface
public interface Mutator {
  /**
   * @param current the document as just read, including {@code _id} and the version field
   * @return what to write; {@link Mutation#none()} to write nothing
   */
  Mutation mutate(Document current);
}
