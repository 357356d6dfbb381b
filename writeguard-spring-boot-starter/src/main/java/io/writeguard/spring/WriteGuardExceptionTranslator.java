package io.writeguard.spring;

import io.writeguard.WriteGuardException;
import io.writeguard.lock.LockBackendException;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.lock.StaleLockException;
import io.writeguard.update.DocumentNotFoundException;
import io.writeguard.update.DocumentValidationException;
import io.writeguard.update.DuplicateKeyWriteException;
import io.writeguard.update.RetriesExhaustedException;
import io.writeguard.update.UpdateFailedException;
import io.writeguard.version.InvalidVersionException;
import io.writeguard.version.VersionFieldException;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.dao.support.PersistenceExceptionTranslator;

/**
 * Turns WriteGuard's exceptions into Spring's {@link DataAccessException}s, keeping the
 * original as the cause and its message (which names the key, attempts, elapsed time and last
 * cause) as the message.
 *
 * <table>
 *   <caption>The translation</caption>
 *   <tr><th>WriteGuard</th><th>Spring</th></tr>
 *   <tr><td>{@link RetriesExhaustedException} after at least one attempt, the last one lost to a
 *       version conflict (no cause)</td><td>{@link OptimisticLockingFailureException}</td></tr>
 *   <tr><td>{@link RetriesExhaustedException} whose last failure was transient (a cause: the
 *       database unreachable or slow), or after 0 attempts (the budget ran out before the
 *       first, e.g. while queued behind a stalled database)</td>
 *       <td>{@link TransientDataAccessResourceException}</td></tr>
 *   <tr><td>{@link LockTimeoutException}</td><td>{@link CannotAcquireLockException}</td></tr>
 *   <tr><td>{@link StaleLockException}</td><td>{@link PessimisticLockingFailureException}</td></tr>
 *   <tr><td>{@link LockBackendException}</td><td>{@link DataAccessResourceFailureException}</td></tr>
 *   <tr><td>{@link DocumentNotFoundException}</td><td>{@link EmptyResultDataAccessException} (expected 1)</td></tr>
 *   <tr><td>{@link DuplicateKeyWriteException}</td><td>{@link DuplicateKeyException}</td></tr>
 *   <tr><td>{@link DocumentValidationException}, {@link InvalidVersionException}</td>
 *       <td>{@link DataIntegrityViolationException}</td></tr>
 *   <tr><td>{@link VersionFieldException}</td><td>{@link InvalidDataAccessApiUsageException}</td></tr>
 *   <tr><td>any other {@link UpdateFailedException}, including
 *       {@code WriteOutcomeUnknownException}</td><td>{@link DataAccessResourceFailureException}</td></tr>
 * </table>
 *
 * Everything else is left alone ({@link #translateExceptionIfPossible} returns null): an
 * interrupt stays a {@code WriteGuardInterruptedException}, and an application's own exception
 * thrown by a mutator reaches the caller unchanged. Both Spring lock exceptions are
 * {@code ConcurrencyFailureException}s. An exhausted budget is a conflict only when conflicts
 * exhausted it: an outage or a stall is not reported as one, so that a caller does not re-read
 * and retry against a database that is not answering as if another writer had won; a
 * {@link TransientDataAccessResourceException} says "the resource failed for now", and nothing
 * was written. A {@code WriteOutcomeUnknownException} is deliberately
 * not made a transient (retryable) exception: the write may have happened, so retrying it
 * blindly could apply it twice; check its cause before doing anything.
 *
 * <p>As a {@link PersistenceExceptionTranslator} bean it also serves Spring's
 * {@code @Repository} exception translation. Stateless and thread-safe.
 */
public class WriteGuardExceptionTranslator implements PersistenceExceptionTranslator {

  @Override
  public DataAccessException translateExceptionIfPossible(RuntimeException ex) {
    if (!(ex instanceof WriteGuardException)) {
      return null;
    }
    String message = ex.getMessage();
    if (ex instanceof RetriesExhaustedException exhausted) {
      return exhaustedByConflicts(exhausted)
          ? new OptimisticLockingFailureException(message, ex)
          : new TransientDataAccessResourceException(message, ex);
    }
    if (ex instanceof LockTimeoutException) {
      return new CannotAcquireLockException(message, ex);
    }
    if (ex instanceof StaleLockException) {
      return new PessimisticLockingFailureException(message, ex);
    }
    if (ex instanceof LockBackendException) {
      return new DataAccessResourceFailureException(message, ex);
    }
    if (ex instanceof DocumentNotFoundException) {
      EmptyResultDataAccessException notFound = new EmptyResultDataAccessException(message, 1);
      notFound.initCause(ex);
      return notFound;
    }
    if (ex instanceof DuplicateKeyWriteException) {
      return new DuplicateKeyException(message, ex);
    }
    if (ex instanceof DocumentValidationException || ex instanceof InvalidVersionException) {
      return new DataIntegrityViolationException(message, ex);
    }
    if (ex instanceof VersionFieldException) {
      return new InvalidDataAccessApiUsageException(message, ex);
    }
    if (ex instanceof UpdateFailedException) {
      return new DataAccessResourceFailureException(message, ex);
    }
    return null;
  }

  /**
   * Whether version conflicts used up the budget: at least one attempt was made and the last
   * one failed on a moved version, not on a transient error (which is kept as the cause).
   */
  private static boolean exhaustedByConflicts(RetriesExhaustedException exhausted) {
    return exhausted.attempts() >= 1 && exhausted.getCause() == null;
  }

  /** The result of {@code call}, with any exception it throws {@linkplain #translate translated}. */
  <T> T translating(java.util.function.Supplier<T> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      throw translate(e);
    }
  }

  /** {@code ex} translated if a translation exists, else {@code ex} itself. */
  RuntimeException translate(RuntimeException ex) {
    DataAccessException translated = translateExceptionIfPossible(ex);
    return translated == null ? ex : translated;
  }
}
