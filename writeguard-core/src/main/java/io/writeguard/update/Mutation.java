package io.writeguard.update;

import java.util.Objects;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * What a {@link Mutator} wants written. The version is never part of it: the updater adds the
 * compare (filter on the version read) and the increment itself.
 *
 * <ul>
 *   <li>{@link #update(Bson)}: update operators ({@code $set}, {@code $push}, ...); the updater
 *       merges in {@code $inc: {version: 1}}. Operators that touch the version field are
 *       refused ({@link io.writeguard.version.VersionGuard}).
 *   <li>{@link #replace(Document)}: a whole new document, written with findOneAndReplace /
 *       replaceOne, so fields the mutator removed are removed from the stored document too.
 *       Its version field may be absent or equal to the version read (it is usually the copy
 *       the mutator was given); the updater writes version + 1. Its {@code _id}, if present,
 *       must be the document's own.
 *   <li>{@link #none()}: nothing to do; the updater writes nothing and reports the document
 *       as read.
 * </ul>
 *
 * <p>Values are immutable as far as this library goes: the updater never changes the
 * {@code Bson} or {@code Document} it is given (it writes a copy). Thread-safe if the
 * wrapped value is not changed by its owner.
 */
public sealed interface Mutation permits Mutation.Update, Mutation.Replace, Mutation.None {

  /** Apply update operators, e.g. {@code Updates.set("status", "paid")}. */
  static Mutation update(Bson update) {
    return new Update(update);
  }

  /** Replace the document with {@code replacement} (version handled by the library). */
  static Mutation replace(Document replacement) {
    return new Replace(replacement);
  }

  /** Write nothing. */
  static Mutation none() {
    return None.INSTANCE;
  }

  /** Update operators to apply. */
  record Update(Bson update) implements Mutation {
    public Update {
      Objects.requireNonNull(update, "update");
    }
  }

  /** A whole new document. */
  record Replace(Document replacement) implements Mutation {
    public Replace {
      Objects.requireNonNull(replacement, "replacement");
    }
  }

  /** Nothing to write. */
  enum None implements Mutation {
    INSTANCE
  }
}
