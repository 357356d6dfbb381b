package io.writeguard.bench;

/**
 * A contender gave up within its budget (retries ran out, or the lock was not had in time):
 * an expected outcome under contention, counted apart from errors. Nothing was acknowledged.
 */
final class BudgetExhaustedException extends RuntimeException {
  BudgetExhaustedException(String message, Throwable cause) {
    super(message, cause);
  }
}
