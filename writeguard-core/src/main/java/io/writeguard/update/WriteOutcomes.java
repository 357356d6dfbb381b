package io.writeguard.update;

/**
 * Answers, for an error a MongoDB write threw, the one question that decides whether the write
 * may be sent again: could it have been applied? The rules are {@code MongoErrors}' (see
 * docs/optimistic-updates.md, "Outcomes"): a reply lost after sending, an operation timeout,
 * an interrupt, "not primary"/"node is recovering", a failed write concern or a
 * {@code RetryableWriteError} may hide an applied write; an error labelled
 * {@code NoWritesPerformed}, no selectable server, a connection never opened or a cleared pool
 * certainly wrote nothing.
 *
 * <p>Every write of the library that is not idempotent uses this to refuse to re-send a write
 * whose outcome is unknown, and reports it as {@link WriteOutcomeUnknownException} instead.
 * Stateless and thread-safe.
 */
public final class WriteOutcomes {
  private WriteOutcomes() {}

  /** True when {@code error}, thrown by a write, leaves open whether the write was applied. */
  public static boolean isOutcomeUnknown(RuntimeException error) {
    return MongoErrors.classifyWrite(error) == MongoErrors.Kind.OUTCOME_UNKNOWN;
  }

  /** True when {@code error}, thrown by a write, means it was certainly not applied. */
  public static boolean certainlyNotApplied(RuntimeException error) {
    return MongoErrors.classifyWrite(error) == MongoErrors.Kind.NOT_APPLIED_TRANSIENT;
  }
}
