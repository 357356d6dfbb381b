package io.writeguard.embedded;

import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.Document;
import java.util.Collection;
import java.util.List;

/**
 * Finds, through a collection's {@code _id} index, the one document a filter can match when the
 * filter pins {@code _id} to a single value: at its top level or in a conjunct of a
 * {@code $and} (nested ones too), as {@code {_id: v}} or {@code {_id: {$eq: v}}}, where {@code v} is neither null,
 * an array, a regular expression nor a document with operator keys.
 *
 * <p>Why: mongo-java-server consults an index only when a filter's keys are exactly the index's
 * keys, so {@code {_id, version}} and every other versioned filter scanned the whole collection.
 * The caller still matches the whole filter against the candidate, so results are unchanged.
 *
 * <p>Stateless; call with the collection's monitor held (the index is read).
 */
final class IdLookup {
  /** Returned by {@link #plainEquality} when a condition does not pin one value. */
  private static final Object NO_VALUE = new Object();

  private IdLookup() {}

  /**
   * The positions of the documents whose {@code _id} equals the one the filter pins (at most
   * one), or null when the filter pins none or the collection has no {@code _id} index.
   */
  static <P> Iterable<P> candidates(Document query, String idField, List<Index<P>> indexes) {
    if (idField == null) {
      return null;
    }
    Object id = idEquality(query, idField);
    if (id == NO_VALUE) {
      return null;
    }
    Document idQuery = new Document(idField, id);
    for (Index<P> index : indexes) {
      if (isIdIndex(index, idField) && index.canHandle(idQuery)) {
        return index.getPositions(idQuery);
      }
    }
    return null;
  }

  /**
   * The value the filter pins {@code _id} to: at its top level, or in a conjunct of its
   * {@code $and}, looked into as deep as {@code $and}s nest ({@code Filters.and} nests them: a
   * conjunct of a conjunct is a conjunct of the whole filter).
   */
  private static Object idEquality(Document query, String idField) {
    if (query.containsKey(idField)) {
      Object id = plainEquality(query.get(idField));
      if (id != NO_VALUE) {
        return id;
      }
    }
    if (query.get("$and") instanceof List<?> conjuncts) {
      for (Object conjunct : conjuncts) {
        if (conjunct instanceof Document element) {
          Object id = idEquality(element, idField);
          if (id != NO_VALUE) {
            return id;
          }
        }
      }
    }
    return NO_VALUE;
  }

  /**
   * {@code v} for a condition {@code v} or {@code {$eq: v}} where {@code v} is a plain value (not
   * null or missing, an array, a regular expression or a document with operator keys); otherwise
   * {@link #NO_VALUE}.
   */
  private static Object plainEquality(Object condition) {
    Object value = condition;
    if (condition instanceof Document document
        && document.size() == 1
        && document.containsKey("$eq")) {
      value = document.get("$eq");
    }
    if (Missing.isNullOrMissing(value)
        || value instanceof Collection
        || BsonRegularExpression.isRegularExpression(value)) {
      return NO_VALUE;
    }
    if (value instanceof Document document) {
      for (String key : document.keySet()) {
        if (key.startsWith("$")) {
          return NO_VALUE;
        }
      }
    }
    return value;
  }

  private static boolean isIdIndex(Index<?> index, String idField) {
    List<IndexKey> keys = index.getKeys();
    return index.isUnique() && keys.size() == 1 && keys.get(0).getKey().equals(idField);
  }

}
