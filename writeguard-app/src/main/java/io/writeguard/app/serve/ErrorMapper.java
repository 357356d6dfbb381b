package io.writeguard.app.serve;

import com.mongodb.MongoConnectionPoolClearedException;
import com.mongodb.MongoSocketException;
import com.mongodb.MongoTimeoutException;
import io.writeguard.app.readinfo.MarkReadException;
import io.writeguard.app.readinfo.NoSuchDocumentException;
import io.writeguard.app.readinfo.NoSuchItemException;
import io.lettuce.core.RedisException;
import io.writeguard.WriteGuardInterruptedException;
import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.lock.StaleLockException;
import io.writeguard.path.InvalidPathException;
import io.writeguard.update.DocumentNotFoundException;
import io.writeguard.update.RetriesExhaustedException;
import io.writeguard.update.WriteOutcomeUnknownException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns what a request threw into the status and body the client sees.
 *
 * <pre>
 * ApiException                         its own status (400, 401, 404, 413)
 * InvalidPathException                 400  (a path segment the route did not name itself)
 * NoSuchDocumentException, DocumentNotFoundException   404  field id
 * NoSuchItemException                  404  field i (the item; a mark never creates one)
 * MarkReadException                    409  the item's read is not a list (no Retry-After)
 * WriteOutcomeUnknownException         503  Retry-After: a mark is idempotent, so retrying is safe
 * a backend outage anywhere in the cause chain (below)   503  Retry-After: "database unavailable"
 *                                      or "lock service unavailable", never 409
 * RetriesExhaustedException            409  Retry-After: the document is hot, nothing written
 * StaleLockException                   409  Retry-After: a newer lock holder wrote first
 * LockTimeoutException                 503  Retry-After: the lock was busy for the whole wait
 * WriteGuardInterruptedException       503  Retry-After: a wait was interrupted (shutdown)
 * anything else                        500  "internal error" (the stack trace goes to the log only)
 * </pre>
 *
 * <p>A backend outage is a {@code MongoSocketException} (read timeouts of a stalled server
 * included), a {@code MongoTimeoutException} (server selection, pool checkout, operation
 * timeout), a {@code MongoConnectionPoolClearedException}, a {@link LockBackendException} or a
 * Lettuce {@code RedisException}, found on the error itself or on any of its causes: a
 * {@code RetriesExhaustedException} whose last cause was a socket timeout, or an
 * {@code UpdateFailedException} caused by one, is an outage and not contention. An outage is
 * logged as one line (what and why), never as a stack trace: a stalled database would
 * otherwise fill the log with one trace per request.
 *
 * <p>Messages of our own exceptions name keys, attempts and times, never data from other users;
 * the 500 message is fixed, so nothing internal leaks. Thread-safe (immutable).
 */
public final class ErrorMapper {
  private static final Logger log = LoggerFactory.getLogger(ErrorMapper.class);

  private final int retryAfterSeconds;

  /** {@code retryAfterSeconds} is what 409 and 503 answers put in {@code Retry-After}. */
  public ErrorMapper(int retryAfterSeconds) {
    if (retryAfterSeconds < 1) {
      throw new IllegalArgumentException("retryAfterSeconds must be >= 1, was " + retryAfterSeconds);
    }
    this.retryAfterSeconds = retryAfterSeconds;
  }

  public ErrorResponse map(Throwable error) {
    if (error instanceof ApiException e) {
      return new ErrorResponse(e.status(), e.getMessage(), e.field(), null);
    }
    if (error instanceof InvalidPathException e) {
      return new ErrorResponse(400, e.getMessage(), null, null);
    }
    if (error instanceof NoSuchDocumentException) {
      return new ErrorResponse(404, "no such document", "id", null);
    }
    if (error instanceof NoSuchItemException e) {
      return new ErrorResponse(404, "no such item: infos." + Shown.value(e.item().key()) + "."
          + Shown.value(e.item().skey()) + "." + e.item().index() + " (a mark never creates one)",
          "i", null);
    }
    if (error instanceof MarkReadException e) {
      // The item exists but its read list is not an array: retrying cannot help.
      return new ErrorResponse(409, "the item cannot be marked: " + e.getMessage(), null, null);
    }
    if (error instanceof DocumentNotFoundException) {
      return new ErrorResponse(404, "no such document", "id", null);
    }
    if (error instanceof WriteOutcomeUnknownException) {
      log.warn("write outcome unknown: {}", oneLine(error));
      return retry(503, "the database did not confirm the write; marking is idempotent, so"
          + " retrying is safe");
    }
    Throwable outage = outage(error);
    if (outage != null) {
      boolean lock = outage instanceof LockBackendException || outage instanceof RedisException;
      log.warn("{} unavailable: {}", lock ? "lock service" : "database", oneLine(error));
      // The details (a URI?) stay in the log.
      return retry(503, lock ? "lock service unavailable" : "database unavailable");
    }
    if (error instanceof RetriesExhaustedException e) {
      return retry(409, "the document is busy: " + e.getMessage());
    }
    if (error instanceof StaleLockException e) {
      return retry(409, e.getMessage());
    }
    if (error instanceof LockTimeoutException e) {
      return retry(503, e.getMessage());
    }
    if (error instanceof WriteGuardInterruptedException) {
      return retry(503, "the server is shutting down");
    }
    log.error("request failed", error);
    return new ErrorResponse(500, "internal error", null, null);
  }

  /** The first backend outage on {@code error} or its causes, or null when there is none. */
  static Throwable outage(Throwable error) {
    int depth = 0;
    for (Throwable t = error; t != null && depth < 32; t = t.getCause(), depth++) {
      if (t instanceof MongoSocketException || t instanceof MongoTimeoutException
          || t instanceof MongoConnectionPoolClearedException
          || t instanceof LockBackendException || t instanceof RedisException) {
        return t;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }

  /** The error and its causes' messages on one line, for a log without stack traces. */
  static String oneLine(Throwable error) {
    StringBuilder b = new StringBuilder(String.valueOf(error));
    int depth = 0;
    for (Throwable t = error.getCause(); t != null && depth < 8; t = t.getCause(), depth++) {
      b.append(" <- ").append(t);
      if (t.getCause() == t) {
        break;
      }
    }
    return b.toString().replace('\n', ' ').replace('\r', ' ');
  }

  private ErrorResponse retry(int status, String message) {
    return new ErrorResponse(status, message, null, retryAfterSeconds);
  }
}
