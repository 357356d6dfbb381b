/**
 * The translation between a typed collection's document class and the {@code Document}s the
 * versioned and fenced machinery works on ({@link io.writeguard.typed.TypedDocuments}). Knows
 * only the driver, so the lock and update packages above it can both use it.
 */
package io.writeguard.typed;
