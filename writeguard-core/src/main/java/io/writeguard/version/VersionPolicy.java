package io.writeguard.version;

import com.mongodb.client.model.Filters;
import io.writeguard.internal.CheckedUpdate;
import io.writeguard.internal.Checks;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * Where a document keeps its version and what counts as a usable one.
 *
 * <p>The version is a top-level field (default {@code version}) holding a non-negative int64:
 * {@code 0} on insert ({@link VersionedInsert}), {@code +1} on every write the library makes,
 * never written by user code ({@link VersionGuard}). An int32 is accepted when read (numeric
 * equality matches it, and the library's first {@code $inc} by an int64 turns it into an
 * int64). Anything else is refused with an {@link InvalidVersionException}: {@code null}
 * (a {@code {version: null}} filter would also match documents with no version at all), a
 * string ({@code "10" < "2"} in BSON), a double (it stays a double forever once {@code $inc}'d),
 * a negative number.
 *
 * <p>A document with no version at all (written before the library was used) is a legacy
 * document; {@link MissingVersion} says whether the updater adopts it or refuses it.
 *
 * <p>Immutable and thread-safe.
 */
public final class VersionPolicy {
  /** The default version field name. */
  public static final String DEFAULT_FIELD = "version";
  /** The version every document starts at. */
  public static final long INITIAL_VERSION = 0L;

  private static final VersionPolicy DEFAULTS = builder().build();

  /** What the updater does with a document that has no version field. */
  public enum MissingVersion {
    /**
     * Adopt it atomically: the first write filters on {@code {version: {$exists: false}}} and
     * sets the version to 1, so of two concurrent adopters exactly one wins and the other
     * sees a conflict and retries on the adopted document.
     */
    ADOPT,
    /** Refuse it with an {@link InvalidVersionException} until it is repaired (audit --fix). */
    REFUSE
  }

  private final String field;
  private final MissingVersion missingVersion;

  private VersionPolicy(Builder builder) {
    this.field = builder.field;
    this.missingVersion = builder.missingVersion;
  }

  /** Field {@code version}, legacy documents adopted. */
  public static VersionPolicy defaults() {
    return DEFAULTS;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The top-level field that holds the version. */
  public String field() {
    return field;
  }

  public MissingVersion missingVersion() {
    return missingVersion;
  }

  /** {@code {_id: id, <field>: expected}}: matches only the version that was read. */
  public Bson filter(Object id, long expected) {
    return new Document("_id", id).append(field, expected);
  }

  /** {@code {_id: id, <field>: {$exists: false}}}: matches only a legacy, unversioned document. */
  public Bson missingFilter(Object id) {
    return new Document("_id", id).append(field, new Document("$exists", false));
  }

  /**
   * A filter matching the documents whose version this policy accepts and that one more
   * increment leaves acceptable: a non-negative int32 or int64 below {@code Long.MAX_VALUE - 1},
   * or none at all when legacy documents are adopted. For a write that raises the version
   * without knowing it (a claim), so that it never touches a version that
   * {@link #expectedVersion} would refuse, before or after.
   */
  public Bson usableFilter() {
    Bson usable = Filters.and(
        Filters.or(Filters.type(field, BsonType.INT32), Filters.type(field, BsonType.INT64)),
        Filters.gte(field, 0L), Filters.lt(field, Long.MAX_VALUE - 1));
    return missingVersion == MissingVersion.ADOPT
        ? Filters.or(Filters.exists(field, false), usable) : usable;
  }

  /** {@code {$inc: {<field>: 1 (int64)}}}: on a missing field it creates the version as 1. */
  public Bson increment() {
    return new BsonDocument("$inc", new BsonDocument(field, new BsonInt64(1)));
  }

  /**
   * {@code update} plus {@code $inc} of the version, for a write that does not filter on the
   * version (an atomic operator, a fenced write, a counter): it does not need to know the
   * version, but it must move it, so that a versioned read-change-write that read the document
   * before it sees a conflict and re-reads, instead of writing back what it read.
   *
   * <p>Checked here when the driver's default codecs render {@code update}; one holding a value
   * only the collection's codecs encode (a UUID under a configured representation, a class with
   * a codec of your own) is checked when the write renders it, with those codecs, and the
   * write throws the exceptions below before sending anything.
   *
   * @throws VersionFieldException if {@code update} writes the version field itself
   * @throws IllegalArgumentException if {@code update} is not a document of update operators
   */
  public Bson raising(Bson update) {
    Objects.requireNonNull(update, "update");
    return CheckedUpdate.of(update, increment(), this::checkRaisable);
  }

  private void checkRaisable(BsonDocument update) {
    VersionGuard.of(this).checkUpdate(update);
    if (update.isEmpty() || !update.getFirstKey().startsWith("$")) {
      throw new IllegalArgumentException("update must be a document of update operators"
          + " ($set, $inc, ...), was " + update.toJson());
    }
  }

  /**
   * The version of a document as stored, empty when the field is missing.
   *
   * @param id the document's id, named in the error
   * @throws InvalidVersionException when the field holds something other than a non-negative
   *     int32/int64
   */
  public OptionalLong versionOf(Object id, BsonDocument document) {
    Objects.requireNonNull(document, "document");
    // One lookup, not containsKey and get: on a raw document each is a scan with a reader of
    // its own (a BsonDocument never holds a Java null, so null means missing).
    BsonValue value = document.get(field);
    if (value == null) {
      return OptionalLong.empty();
    }
    if (value.isInt64()) {
      return checked(id, value.asInt64().getValue());
    }
    if (value.isInt32()) {
      return checked(id, value.asInt32().getValue());
    }
    InvalidVersionException.Problem problem = value.isNull()
        ? InvalidVersionException.Problem.NULL
        : InvalidVersionException.Problem.NOT_AN_INTEGER;
    throw new InvalidVersionException(id, field, problem, describe(value));
  }

  /** {@link #versionOf(Object, BsonDocument)} for a decoded document. */
  public OptionalLong versionOf(Object id, Document document) {
    Objects.requireNonNull(document, "document");
    if (!document.containsKey(field)) {
      return OptionalLong.empty();
    }
    Object value = document.get(field);
    if (value instanceof Long || value instanceof Integer) {
      return checked(id, ((Number) value).longValue());
    }
    if (value == null) {
      throw new InvalidVersionException(id, field, InvalidVersionException.Problem.NULL, "null");
    }
    throw new InvalidVersionException(id, field, InvalidVersionException.Problem.NOT_AN_INTEGER,
        value.getClass().getSimpleName() + " " + Checks.quote(value));
  }

  /**
   * The version to write against: the stored one, or empty for a legacy document this policy
   * adopts.
   *
   * @throws InvalidVersionException when the version is unusable or missing and refused
   */
  public OptionalLong expectedVersion(Object id, BsonDocument document) {
    OptionalLong version = versionOf(id, document);
    if (version.isEmpty() && missingVersion == MissingVersion.REFUSE) {
      throw new InvalidVersionException(
          id, field, InvalidVersionException.Problem.MISSING, "missing");
    }
    return version;
  }

  /**
   * An integral version, checked. Its text for the error is made only when it is refused: every
   * read of every update passes here, almost always with a usable version (an int32 or int64
   * is shown as its decimal digits either way).
   */
  private OptionalLong checked(Object id, long version) {
    if (version < 0) {
      throw new InvalidVersionException(
          id, field, InvalidVersionException.Problem.NEGATIVE, Long.toString(version));
    }
    if (version == Long.MAX_VALUE) {
      // One more $inc would overflow; no real document gets here, a corrupted one might.
      throw new InvalidVersionException(
          id, field, InvalidVersionException.Problem.AT_MAXIMUM, Long.toString(version));
    }
    return OptionalLong.of(version);
  }

  /** A stored version that is not an integer, as the error shows it. */
  private static String describe(BsonValue value) {
    if (value.isString()) {
      return "string \"" + value.asString().getValue() + "\"";
    }
    if (value.isDouble()) {
      return "double " + value.asDouble().getValue();
    }
    return value.isNull()
        ? "null"
        : value.getBsonType().name().toLowerCase(Locale.ROOT) + " " + value;
  }

  @Override
  public String toString() {
    return "VersionPolicy{field=" + field + ", missingVersion=" + missingVersion + "}";
  }

  /** Builds a {@link VersionPolicy}; not thread-safe. */
  public static final class Builder {
    private String field = DEFAULT_FIELD;
    private MissingVersion missingVersion = MissingVersion.ADOPT;

    private Builder() {}

    /**
     * The version field: a top-level name, not {@code _id}, no {@code $} prefix, no {@code .},
     * no NUL.
     */
    public Builder field(String field) {
      Checks.notBlank("version field", field);
      if (field.startsWith("$") || field.contains(".") || field.indexOf('\0') >= 0
          || field.equals("_id")) {
        throw new IllegalArgumentException("version field must be a plain top-level name"
            + " (not _id, no '$' prefix, no '.', no NUL), was " + Checks.quote(field));
      }
      this.field = field;
      return this;
    }

    public Builder missingVersion(MissingVersion missingVersion) {
      this.missingVersion = Objects.requireNonNull(missingVersion, "missingVersion");
      return this;
    }

    public VersionPolicy build() {
      return new VersionPolicy(this);
    }
  }
}
