/**
 * Validated field paths and the atomic operators that use them.
 *
 * <p>{@link io.writeguard.path.FieldPath} builds paths such as {@code infos.<key>.<skey>.<i>.read}
 * from untrusted segments, rejecting anything that could reach a different field or an operator
 * ({@link io.writeguard.path.PathSegments} lists the rules); {@link
 * io.writeguard.path.AtomicUpdates} turns a path into a one-round-trip {@code $addToSet},
 * {@code $push}, {@code $inc} or {@code $set}.
 */
package io.writeguard.path;
