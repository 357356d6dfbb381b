package io.writeguard.version;

import io.writeguard.internal.Deadline;
import com.mongodb.client.MongoCollection;
import java.util.Objects;
import org.bson.Document;

/**
 * Inserts new documents with an explicit int64 version of 0, so the first optimistic update
 * has something exact to compare with ({@code null} or a missing field never match
 * {@code {version: 0}}). Stateless and thread-safe.
 */
public final class VersionedInsert {
  private VersionedInsert() {}

  /**
   * A shallow copy of {@code document} with the version field set to {@code 0L}; the argument
   * is not changed.
   *
   * @throws VersionFieldException if the document already carries a version other than 0
   */
  public static Document stamp(VersionPolicy policy, Document document) {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(document, "document");
    String field = policy.field();
    if (document.containsKey(field)) {
      Object given = document.get(field);
      boolean zero = (given instanceof Long || given instanceof Integer)
          && ((Number) given).longValue() == VersionPolicy.INITIAL_VERSION;
      if (!zero) {
        throw new VersionFieldException("insert", field, "a new document starts at version "
            + VersionPolicy.INITIAL_VERSION + " (int64), was "
            + (given == null ? "null" : given.getClass().getSimpleName() + " " + given));
      }
    }
    Document stamped = new Document(document);
    stamped.put(field, VersionPolicy.INITIAL_VERSION);
    return stamped;
  }

  /**
   * Inserts {@link #stamp(VersionPolicy, Document) a stamped copy} of {@code document} and
   * returns that copy (with the {@code _id} the driver generated, if it had none). Driver
   * exceptions (duplicate key, ...) pass through unchanged.
   */
  public static Document insertOne(
      MongoCollection<Document> collection, VersionPolicy policy, Document document) {
    Objects.requireNonNull(collection, "collection");
    Document stamped = stamp(policy, document);
    Deadline.boundedWrite(collection).insertOne(stamped);
    return stamped;
  }
}
