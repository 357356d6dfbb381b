package io.writeguard.tx;

import com.mongodb.client.ClientSession;

/**
 * The body of a transaction. It may run several times (once per attempt), so it must do all its
 * database work through {@code session} and keep other side effects out (or route them through
 * {@link io.writeguard.idempotency.IdempotencyStore}).
 *
 * <p>Called only on the thread that called {@code run}, once per attempt, never concurrently
 * by one run.
 *
 * @param <T> what the body returns; returned by {@link TransactionRunner#run} after the commit
 */
@FunctionalInterface
public interface TransactionWork<T> {
  T execute(ClientSession session);
}
