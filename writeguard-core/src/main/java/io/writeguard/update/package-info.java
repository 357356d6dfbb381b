/**
 * Optimistic, versioned read-modify-write of single MongoDB documents.
 *
 * <p>Start with {@link io.writeguard.update.VersionedUpdater}: give it a document id and a pure
 * {@link io.writeguard.update.Mutator}; it reads, asks for a
 * {@link io.writeguard.update.Mutation}, and writes with a compare-and-set on the document's
 * version, retrying conflicts within a {@link io.writeguard.update.RetryPolicy}. Failures are
 * {@link io.writeguard.update.UpdateFailedException} and its subclasses. See
 * {@code docs/optimistic-updates.md}.
 */
package io.writeguard.update;
