/**
 * A caller's deadline for everything the library does on its thread
 * ({@link io.writeguard.deadline.Deadlines#within}). A package of its own so that the root
 * package, the vocabulary every layer shares (clock, sleeper, exceptions), imports nothing of
 * the library.
 */
package io.writeguard.deadline;
