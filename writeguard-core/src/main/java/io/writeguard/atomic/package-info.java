/**
 * Atomic operators on validated paths: {@link io.writeguard.atomic.AtomicUpdates} turns a
 * {@link io.writeguard.path.FieldPath} into a one-round-trip {@code $addToSet}, {@code $push},
 * {@code $inc} or {@code $set}, and its {@code versioned} form also raises the document's
 * version. Above {@code path} and {@code version}, which it combines.
 */
package io.writeguard.atomic;
