package io.writeguard.bench;

import org.bson.types.ObjectId;

/**
 * One way of doing the bench's read-modify-write: add an operation's id to the hot document.
 * Every contender changes the document the same way (see {@link HotDocument}), so the final
 * document tells, for each acknowledged operation, whether its change survived.
 *
 * <p>Implementations are thread-safe: all clients of a process share one instance.
 */
interface Contender extends AutoCloseable {

  /** The name used on the command line and in the table. */
  String name();

  /**
   * Adds {@code opId} to document {@code docId}; returning means the change was acknowledged.
   *
   * @return how many attempts it took (lock acquisitions count as one attempt; a lock polled
   *     until free counts each poll)
   * @throws BudgetExhaustedException when the retry budget or the lock wait ran out, nothing
   *     acknowledged
   */
  int add(ObjectId docId, long opId);

  /** Closes the clients this contender opened. */
  @Override
  default void close() {}
}
