/**
 * The vocabulary every layer of WriteGuard shares: {@link io.writeguard.Ticker},
 * {@link io.writeguard.Sleeper} and the root of its exceptions,
 * {@link io.writeguard.WriteGuardException}. Imports nothing of the library. The packages
 * are stacked, each using only those below it; docs/architecture.md draws the stack.
 */
package io.writeguard;
