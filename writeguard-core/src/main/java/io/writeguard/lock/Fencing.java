package io.writeguard.lock;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.lte;
import static com.mongodb.client.model.Filters.or;

import com.mongodb.client.model.Updates;
import io.writeguard.internal.CheckedUpdate;
import io.writeguard.internal.Checks;
import java.util.Map;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * Fencing at the data: a write made under a lock carries the lock's token, and the document
 * remembers the highest token that wrote it in a fence field (default {@value #FIELD}).
 *
 * <p>A fenced write matches only while {@code _fence} is missing, null or at most its token, and
 * raises it with {@code $max}. A holder whose lease expired while it was paused has a lower
 * token than the holder that took over; once the newer holder has written (or
 * {@linkplain FencedWriter#claim claimed}) the document, the old holder's write matches nothing,
 * so MongoDB itself refuses it, however late it arrives.
 *
 * <p>Tokens of one lock key are comparable only with each other: fence a document with the
 * tokens of one lock key (for example {@code "orders:" + id}), never of two services or keys,
 * and only with locks that exclude every other holder of the document: not with
 * {@link PathLockService} locks on some of its paths, which are held side by side.
 *
 * <p>Static helpers for any collection; {@link FencedWriter} runs them and classifies misses.
 * Thread-safe (stateless).
 */
public final class Fencing {
  /** The default fence field. */
  public static final String FIELD = "_fence";

  private Fencing() {}

  /** {@code filter} and {@code {$or: [{_fence: null}, {_fence: {$lte: token}}]}}. */
  public static Bson fencedFilter(Bson filter, long token) {
    return fencedFilter(filter, FIELD, token);
  }

  /** As {@link #fencedFilter(Bson, long)} with a fence field of your own. */
  public static Bson fencedFilter(Bson filter, String fenceField, long token) {
    Objects.requireNonNull(filter, "filter must not be null");
    checkField(fenceField);
    return and(filter, or(eq(fenceField, null), lte(fenceField, token)));
  }

  /** {@code update} plus {@code {$max: {_fence: token}}}. */
  public static Bson fencedUpdate(Bson update, long token) {
    return fencedUpdate(update, FIELD, token);
  }

  /**
   * As {@link #fencedUpdate(Bson, long)} with a fence field of your own.
   *
   * <p>Checked here when the driver's default codecs render {@code update}; one holding a value
   * only the collection's codecs encode (a UUID under a configured representation, a class with
   * a codec of your own) is checked when the write renders it, with those codecs, and the write
   * throws before sending anything.
   *
   * @throws IllegalArgumentException if {@code update} already writes the fence field
   */
  public static Bson fencedUpdate(Bson update, String fenceField, long token) {
    Objects.requireNonNull(update, "update must not be null");
    checkField(fenceField);
    return CheckedUpdate.of(update, Updates.max(fenceField, token),
        rendered -> checkLeavesFence(rendered, fenceField));
  }

  /**
   * Checks that {@code update} (rendered) is a document of update operators none of which
   * writes {@code fenceField}: only the fencing itself may move the fence.
   *
   * @throws IllegalArgumentException naming the operator that writes it, or the bad update
   */
  public static void checkLeavesFence(BsonDocument update, String fenceField) {
    Objects.requireNonNull(update, "update must not be null");
    checkField(fenceField);
    for (Map.Entry<String, BsonValue> operator : update.entrySet()) {
      if (!operator.getKey().startsWith("$") || !operator.getValue().isDocument()) {
        throw new IllegalArgumentException("update must be a document of update operators, was " + update.toJson());
      }
      for (String path : operator.getValue().asDocument().keySet()) {
        if (path.equals(fenceField) || isUnder(path, fenceField)) {
          throw new IllegalArgumentException("update must not write the fence field '" + fenceField
              + "' itself (" + operator.getKey() + "), was " + update.toJson());
        }
      }
    }
  }

  /** {@code path.startsWith(field + ".")}, without making that string for every path. */
  private static boolean isUnder(String path, String field) {
    return path.length() > field.length() && path.charAt(field.length()) == '.'
        && path.startsWith(field);
  }

  /**
   * A copy of {@code replacement} carrying {@code _fence: token} ({@code $max} cannot be used in
   * a replacement; the fenced filter guarantees the stored fence is not higher).
   */
  public static Document fencedReplacement(Document replacement, long token) {
    return fencedReplacement(replacement, FIELD, token);
  }

  /** As {@link #fencedReplacement(Document, long)} with a fence field of your own. */
  public static Document fencedReplacement(Document replacement, String fenceField, long token) {
    Objects.requireNonNull(replacement, "replacement must not be null");
    checkField(fenceField);
    Document copy = new Document(replacement);
    copy.put(fenceField, token);
    return copy;
  }

  /**
   * Checks that {@code fenceField} can be a fence field: a top-level field name.
   *
   * @return {@code fenceField}
   * @throws IllegalArgumentException naming the bad value
   */
  public static String checkField(String fenceField) {
    Checks.notBlank("fenceField", fenceField);
    if (fenceField.startsWith("$") || fenceField.contains(".") || fenceField.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(
          "fenceField must be a top-level field name (no '$' prefix, '.', NUL), was " + Checks.quote(fenceField));
    }
    if (fenceField.equals("_id")) {
      throw new IllegalArgumentException("fenceField must not be '_id': the fence changes with"
          + " every holder and _id never does");
    }
    return fenceField;
  }
}
