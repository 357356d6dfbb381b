package io.writeguard.version;

import com.mongodb.MongoClientSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.conversions.Bson;

/**
 * Rejects update and replacement documents from user code that would write the version field.
 *
 * <p>Why: a {@code $set: {version: 2}} can put back a version another writer has already
 * moved to 2, so two different states carry the same version and the next compare-and-set
 * succeeds against the wrong one; a {@code $unset} or {@code $rename} turns the document into
 * an unversioned one; a {@code "2"} string breaks ordering. The library is the only writer of
 * the version: {@code $inc} by 1 with a filter on the value it read.
 *
 * <p>What is rejected, for the policy's field {@code v}: any update operator whose path is
 * {@code v} or lies under it ({@code v.x}, {@code v.$[]}), including {@code $inc} (the
 * library adds its own), {@code $setOnInsert}, {@code $currentDate}, {@code $min}/{@code $max}
 * and the array operators; a {@code $rename} whose target is {@code v} or under it; a
 * replacement document carrying {@code v}. Top-level keys are checked as dotted paths, so a
 * nested field that merely happens to be called {@code version} ({@code items.version}) is
 * allowed.
 *
 * <p>Immutable and thread-safe.
 */
public final class VersionGuard {
  private final VersionPolicy policy;

  private VersionGuard(VersionPolicy policy) {
    this.policy = Objects.requireNonNull(policy, "policy");
  }

  public static VersionGuard of(VersionPolicy policy) {
    return new VersionGuard(policy);
  }

  /**
   * Checks an update document ({@code {$set: ..., $inc: ...}}); a document with no operators
   * is checked as a replacement.
   *
   * @throws VersionFieldException if it would write the version field
   * @throws IllegalArgumentException if it mixes operators with plain fields, or an operator's
   *     value is not a document
   */
  public void checkUpdate(Bson update) {
    checkUpdate(update, MongoClientSettings.getDefaultCodecRegistry());
  }

  /** {@link #checkUpdate(Bson)} with the codec registry of the collection it is meant for. */
  public void checkUpdate(Bson update, CodecRegistry registry) {
    Objects.requireNonNull(update, "update");
    BsonDocument doc = update.toBsonDocument(BsonDocument.class, registry);
    int operators = 0;
    for (String key : doc.keySet()) {
      if (key.startsWith("$")) {
        operators++;
      }
    }
    if (operators == 0) {
      checkReplacement(doc);
      return;
    }
    if (operators < doc.size()) {
      throw mixed(doc);
    }
    for (Map.Entry<String, BsonValue> entry : doc.entrySet()) {
      checkOperator(entry.getKey(), entry.getValue());
    }
  }

  private static IllegalArgumentException mixed(BsonDocument doc) {
    List<String> operators = new ArrayList<>();
    List<String> fields = new ArrayList<>();
    for (String key : doc.keySet()) {
      (key.startsWith("$") ? operators : fields).add(key);
    }
    return new IllegalArgumentException("update document mixes operators " + operators
        + " with plain fields " + fields + "; use operators only, or a replacement");
  }

  /**
   * Checks a replacement (whole document).
   *
   * @throws VersionFieldException if it carries the version field
   */
  public void checkReplacement(Bson replacement) {
    Objects.requireNonNull(replacement, "replacement");
    if (replacement instanceof Document fields) {
      // Its keys are the fields it writes: no value is encoded, so a value only the
      // collection's codecs know (a UUID, an application class) does not stop the check.
      checkReplacementFields(fields.containsKey(policy.field()));
      return;
    }
    checkReplacement(replacement.toBsonDocument(
        BsonDocument.class, MongoClientSettings.getDefaultCodecRegistry()));
  }

  private void checkReplacement(BsonDocument replacement) {
    checkReplacementFields(replacement.containsKey(policy.field()));
  }

  private void checkReplacementFields(boolean carriesVersion) {
    if (carriesVersion) {
      throw new VersionFieldException("replacement", policy.field(),
          "a replacement from user code must not carry the version field; the library writes"
              + " it");
    }
  }

  private void checkOperator(String operator, BsonValue value) {
    if (!value.isDocument()) {
      throw new IllegalArgumentException(
          "update operator " + operator + " needs a document of paths, was " + value);
    }
    for (Map.Entry<String, BsonValue> target : value.asDocument().entrySet()) {
      String path = target.getKey();
      if (touchesVersion(path)) {
        throw new VersionFieldException(operator, path, detailFor(operator));
      }
      if (operator.equals("$rename") && target.getValue().isString()
          && touchesVersion(target.getValue().asString().getValue())) {
        throw new VersionFieldException(operator, target.getValue().asString().getValue(),
            "'" + path + "' would be renamed onto the version field; the library writes it");
      }
    }
  }

  /** True when {@code path} is the version field or lies under it. */
  public boolean touchesVersion(String path) {
    String field = policy.field();
    return path.startsWith(field)
        && (path.length() == field.length() || path.charAt(field.length()) == '.');
  }

  private static String detailFor(String operator) {
    if (operator.equals("$inc")) {
      return "the library increments the version itself on every write; do not $inc it";
    }
    return "only the library writes the version field (by $inc 1 with a filter on the value it"
        + " read)";
  }
}
