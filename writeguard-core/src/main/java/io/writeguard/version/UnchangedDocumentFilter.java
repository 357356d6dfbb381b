package io.writeguard.version;

import java.util.Map;
import java.util.Optional;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * A query filter that matches a document only while it is still exactly as read: the
 * version condition given, and every other top-level field with the same BSON type and an equal
 * value, and no field more or less.
 *
 * <p>Why each part: query equality compares numbers by value, so each field also pins its
 * {@code $type}; {@code {tags: [a, b]}} also matches an array that merely holds {@code [a, b]}
 * as an element, so arrays are compared whole inside {@code $expr}; and a field added by a
 * writer appears in no per-field condition, so {@code $expr} also pins the number of fields
 * ({@code $size} of {@code $objectToArray} of {@code $$ROOT}). Numbers nested in sub-documents
 * and arrays are still compared by value (see {@link VersionAuditor}). Stateless.
 */
final class UnchangedDocumentFilter {
  private UnchangedDocumentFilter() {}

  /**
   * The filter for {@code read}, or empty when a top-level field name cannot be addressed in a
   * filter ({@code .} inside, or a leading {@code $}).
   */
  static Optional<BsonDocument> of(BsonDocument read, String versionField,
      BsonDocument versionCondition) {
    BsonDocument filter = new BsonDocument("_id", read.get("_id"))
        .append(versionField, versionCondition);
    BsonArray exprs = new BsonArray();
    exprs.add(eq(new BsonDocument("$size",
        new BsonDocument("$objectToArray", new BsonString("$$ROOT"))), new BsonInt32(read.size())));
    for (Map.Entry<String, BsonValue> field : read.entrySet()) {
      String name = field.getKey();
      if (name.equals("_id") || name.equals(versionField)) {
        continue;
      }
      if (name.contains(".") || name.startsWith("$")) {
        return Optional.empty();
      }
      BsonValue value = field.getValue();
      BsonDocument condition =
          new BsonDocument("$type", new BsonInt32(value.getBsonType().getValue()));
      if (value.isArray()) {
        exprs.add(eq(new BsonString("$" + name), new BsonDocument("$literal", value)));
      } else {
        condition.append("$eq", value);
      }
      filter.append(name, condition);
    }
    return Optional.of(filter.append("$expr", new BsonDocument("$and", exprs)));
  }

  private static BsonDocument eq(BsonValue left, BsonValue right) {
    return new BsonDocument("$eq", new BsonArray(java.util.List.of(left, right)));
  }
}
