package io.writeguard.update;

import io.writeguard.typed.TypedDocuments;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.util.Objects;
import org.bson.Document;

/**
 * A {@link VersionedUpdater} for a {@code MongoCollection<T>} of any class its codecs map
 * (POJOs, records, a user codec): the mutator receives a {@code T} and returns a new
 * {@code T} or a {@link Mutation}; the version is the field the codec writes under the
 * {@link VersionPolicy}'s name.
 *
 * <p>It is a thin layer over a Document-based updater of the same collection
 * ({@link TypedDocuments} decodes what the mutator is shown and encodes what it returns), so
 * every rule of {@link VersionedUpdater} holds unchanged: the version-filtered write, the
 * retries, group commit of concurrent callers (typed and untyped callers of the
 * {@link #untyped()} updater share one queue), the outcomes and exceptions. A returned
 * {@code T} follows {@link Mutation#replace}'s rules; see {@link TypedMutation}.
 *
 * <p>Made by {@link VersionedUpdater#typed}. Thread-safe.
 *
 * @param <T> the collection's document class
 */
public final class TypedUpdater<T> implements TypedDocumentUpdater<T> {
  private final VersionedUpdater updater;
  private final TypedDocuments<T> documents;
  private final TypedDocumentUpdater<T> typed;

  TypedUpdater(VersionedUpdater updater, TypedDocuments<T> documents) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.documents = Objects.requireNonNull(documents, "documents");
    this.typed = TypedDocumentUpdater.over(updater, documents, updater.versionPolicy().field());
  }

  /**
   * Updates document {@code id} as {@link VersionedUpdater#update}; the outcome carries the
   * document as written.
   */
  @Override
  public TypedOutcome<T> update(Object id, TypedMutator<T> mutator) {
    return typed.update(id, mutator);
  }

  /** As {@link VersionedUpdater#updateOne}: no document in the outcome. */
  @Override
  public TypedOutcome<T> updateOne(Object id, TypedMutator<T> mutator) {
    return typed.updateOne(id, mutator);
  }

  /**
   * Inserts {@code value} at version 0, as {@link VersionedInsert}: its version must be
   * {@code null} (or absent, or 0); the codec's {@code _id} generation applies.
   *
   * @return the value as stored
   * @throws io.writeguard.version.VersionFieldException if it carries another version
   */
  public T insert(T value) {
    Document stored = VersionedInsert.insertOne(documents.documentView(), versionPolicy(),
        documents.encode(value, versionPolicy().field()));
    return documents.decode(stored);
  }

  /** The Document-based updater this one runs (same collection, same settings). */
  public VersionedUpdater untyped() {
    return updater;
  }

  /** The codec translation this updater uses. */
  public TypedDocuments<T> documents() {
    return documents;
  }

  public VersionPolicy versionPolicy() {
    return updater.versionPolicy();
  }
}
