/**
 * Validated field paths, the bottom of the library's layers (it knows only the driver).
 *
 * <p>{@link io.writeguard.path.FieldPath} builds paths such as {@code infos.<key>.<skey>.<i>.read}
 * from untrusted segments, rejecting anything that could reach a different field or an operator
 * ({@link io.writeguard.path.PathSegments} lists the rules); {@link
 * io.writeguard.atomic.AtomicUpdates} turns a path into a one-round-trip update.
 */
package io.writeguard.path;
