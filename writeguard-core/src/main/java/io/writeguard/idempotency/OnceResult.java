package io.writeguard.idempotency;

/**
 * The outcome of {@link IdempotencyStore#once}. Immutable if {@code T} is.
 *
 * @param value what the action returned (here or in the call that ran it)
 * @param executed true when this call ran the action; false when it got the stored outcome
 */
public record OnceResult<T>(T value, boolean executed) {}
