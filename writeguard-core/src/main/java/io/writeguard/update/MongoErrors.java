package io.writeguard.update;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoConnectionPoolClearedException;
import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.MongoNodeIsRecoveringException;
import com.mongodb.MongoNotPrimaryException;
import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.MongoServerException;
import com.mongodb.MongoSocketException;
import com.mongodb.MongoSocketOpenException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.MongoWriteConcernException;
import com.mongodb.MongoWriteException;

/**
 * Sorts driver exceptions into what the update loop does with them. Package-private.
 *
 * <p>The question for a failed <em>write</em> is not "is this transient?" but "could it have
 * been applied?". A compare-and-set that was applied and is then re-run from a fresh read
 * applies the mutation twice; one that certainly was not applied can be re-run freely. So:
 *
 * <ul>
 *   <li>Certainly not applied: the driver never sent it (no server selectable, connection not
 *       opened, pool cleared), or the error is labelled {@code NoWritesPerformed}. Retryable.
 *   <li>Maybe applied: the socket broke or timed out after sending, the operation timed out,
 *       a state-change error (not primary, node recovering: with retryable writes on, the
 *       driver re-sends a write once and reports the second attempt's error, so "not primary"
 *       can hide a first attempt that was applied before the connection broke),
 *       the thread was interrupted while waiting for the reply, the server applied it but the
 *       write concern failed, or any other error carrying
 *       {@code RetryableWriteError} (e.g. a router that lost its shard mid-write). Never
 *       retried.
 *   <li>Duplicate key ({@link ErrorCategory#DUPLICATE_KEY}) and document validation (121):
 *       permanent for this change.
 *   <li>Anything else: permanent.
 * </ul>
 *
 * <p>A failed <em>read</em> changes nothing, so any transient read error is retryable.
 */
final class MongoErrors {
  /** DocumentValidationFailure; the driver has no {@link ErrorCategory} for it. */
  static final int DOCUMENT_VALIDATION_FAILURE = 121;
  /** The server ran out of a command's maxTimeMS (a deadline sends one with every write). */
  static final int MAX_TIME_MS_EXPIRED = 50;
  static final String RETRYABLE_WRITE_ERROR = "RetryableWriteError";
  static final String NO_WRITES_PERFORMED = "NoWritesPerformed";

  enum Kind {
    DUPLICATE_KEY, DOCUMENT_VALIDATION, NOT_APPLIED_TRANSIENT, OUTCOME_UNKNOWN, PERMANENT
  }

  private MongoErrors() {}

  static Kind classifyWrite(RuntimeException error) {
    if (!(error instanceof MongoException)) {
      return Kind.PERMANENT;
    }
    MongoException e = (MongoException) error;
    if (e.hasErrorLabel(NO_WRITES_PERFORMED)) {
      return Kind.NOT_APPLIED_TRANSIENT;
    }
    if (e instanceof MongoWriteConcernException) {
      // Applied on the primary; whether it survives is unknown.
      return Kind.OUTCOME_UNKNOWN;
    }
    int code = serverCode(e);
    if (code != 0 && ErrorCategory.fromErrorCode(code) == ErrorCategory.DUPLICATE_KEY) {
      return Kind.DUPLICATE_KEY;
    }
    if (code == DOCUMENT_VALIDATION_FAILURE) {
      return Kind.DOCUMENT_VALIDATION;
    }
    if (e instanceof MongoNotPrimaryException || e instanceof MongoNodeIsRecoveringException) {
      return Kind.OUTCOME_UNKNOWN; // may be the driver's retry of an applied first attempt
    }
    if (neverSent(e)) {
      return Kind.NOT_APPLIED_TRANSIENT;
    }
    if (e instanceof MongoSocketException || e instanceof MongoOperationTimeoutException
        || e instanceof MongoInterruptedException || e.hasErrorLabel(RETRYABLE_WRITE_ERROR)
        || code == MAX_TIME_MS_EXPIRED) {
      // Interrupted: the thread may have stopped waiting after the command went out. A write
      // stopped by its maxTimeMS is counted the same way: whether the driver's retry of it, or
      // a multi-statement write, applied anything first is not known.
      return Kind.OUTCOME_UNKNOWN;
    }
    return Kind.PERMANENT;
  }

  /** True when a failed read (or probe) is worth repeating. */
  static boolean isTransientRead(RuntimeException error) {
    if (!(error instanceof MongoException)) {
      return false;
    }
    MongoException e = (MongoException) error;
    return e instanceof MongoSocketException
        || e instanceof MongoTimeoutException
        || e instanceof MongoConnectionPoolClearedException
        || e instanceof MongoNotPrimaryException
        || e instanceof MongoNodeIsRecoveringException
        || e.hasErrorLabel(RETRYABLE_WRITE_ERROR);
  }

  private static boolean neverSent(MongoException e) {
    if (e instanceof MongoOperationTimeoutException) {
      return false; // client-side operation timeout: may fire after sending
    }
    return e instanceof MongoTimeoutException // server selection or pool checkout
        || e instanceof MongoSocketOpenException
        || e instanceof MongoConnectionPoolClearedException;
  }

  /** The server's error code, from the single write error when there is one. */
  private static int serverCode(MongoException e) {
    if (e instanceof MongoWriteException) {
      return ((MongoWriteException) e).getError().getCode();
    }
    return e instanceof MongoServerException ? e.getCode() : 0;
  }
}
