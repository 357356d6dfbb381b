package io.writeguard.update;

import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Reading a dotted path of a document for {@link MergedWrite}: what the round read holds there,
 * what the model computed there, and which paths lie inside one another. Unlike
 * {@link InMemoryPaths} it refuses nothing: a path it cannot follow has no value. Stateless and
 * thread-safe.
 */
final class MergePaths {
  private MergePaths() {}

  /** The value at the path, through documents and canonical array indexes; null if none. */
  static BsonValue valueAt(BsonDocument doc, String[] segments) {
    BsonValue at = doc;
    for (String segment : segments) {
      if (at.isDocument()) {
        at = at.asDocument().get(segment);
      } else if (at.isArray()) {
        int i = InMemoryPaths.index(segment);
        at = i >= 0 && i < at.asArray().size() ? at.asArray().get(i) : null;
      } else {
        return null;
      }
      if (at == null) {
        return null;
      }
    }
    return at;
  }

  /** True when no value on the way to the path (excluding the path itself) is an array. */
  static boolean throughDocuments(BsonDocument doc, String[] segments) {
    BsonValue at = doc;
    for (int i = 0; i < segments.length - 1; i++) {
      if (!at.isDocument()) {
        return false;
      }
      at = at.asDocument().get(segments[i]);
      if (at == null) {
        return true; // missing parents are created as embedded documents
      }
    }
    return at.isDocument();
  }

  /** True when {@code path} is {@code prefix} or lies inside it. */
  static boolean isPrefix(String[] prefix, String[] path) {
    if (prefix.length > path.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (!prefix[i].equals(path[i])) {
        return false;
      }
    }
    return true;
  }
}
