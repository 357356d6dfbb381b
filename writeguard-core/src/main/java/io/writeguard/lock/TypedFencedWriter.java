package io.writeguard.lock;

import io.writeguard.typed.TypedDocuments;
import java.util.Objects;
import java.util.Optional;
import org.bson.conversions.Bson;

/**
 * A {@link FencedWriter} for a {@code MongoCollection<T>} of any class its codecs map:
 * {@link #claim} decodes the claimed document, {@link #replaceOne} encodes the replacement.
 * Every rule is {@link FencedWriter}'s (it runs one over the same collection read as
 * {@code Document}): the fence, stale holders refused, and with a version policy the
 * replacement's version being the version it was read at. A {@code null} version in the
 * replacement means "not set" and is dropped, so it replaces only an unversioned document.
 * The stored replacement is the encoded value plus the fence (and version): fields the class
 * does not map are removed, as with any replacement.
 *
 * <p>Made by {@link FencedWriter#typed}. Immutable and thread-safe.
 *
 * @param <T> the collection's document class
 */
public final class TypedFencedWriter<T> {
  private final FencedWriter writer;
  private final TypedDocuments<T> documents;
  private final String versionField; // null: no version policy

  TypedFencedWriter(FencedWriter writer, TypedDocuments<T> documents, String versionField) {
    this.writer = Objects.requireNonNull(writer, "writer");
    this.documents = Objects.requireNonNull(documents, "documents");
    this.versionField = versionField;
  }

  /**
   * As {@link FencedWriter#claim}: reads document {@code id} and raises its fence in one step.
   *
   * @return the claimed document, decoded; empty if there is none
   * @throws StaleLockException if a newer token has already claimed or written it
   */
  public Optional<T> claim(LockHandle lock, Object id) {
    return writer.claim(lock, id).map(documents::decode);
  }

  /** As {@link FencedWriter#replaceOne(LockHandle, Object, org.bson.Document)}. */
  public FencedWriter.Outcome replaceOne(LockHandle lock, Object id, T replacement) {
    return replaceOne(lock, id, null, replacement);
  }

  /** As {@link FencedWriter#replaceOne(LockHandle, Object, Bson, org.bson.Document)}. */
  public FencedWriter.Outcome replaceOne(LockHandle lock, Object id, Bson filter, T replacement) {
    Objects.requireNonNull(replacement, "replacement must not be null");
    return writer.replaceOne(lock, id, filter, documents.encode(replacement, versionField));
  }

  /** As {@link FencedWriter#findOneAndUpdate}, the result decoded. */
  public Optional<T> findOneAndUpdate(LockHandle lock, Object id, Bson update) {
    return writer.findOneAndUpdate(lock, id, update).map(documents::decode);
  }

  /** The Document-based writer, for {@code updateOne} and {@code upsertOne}. */
  public FencedWriter untyped() {
    return writer;
  }
}
