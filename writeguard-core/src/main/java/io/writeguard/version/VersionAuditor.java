package io.writeguard.version;

import com.mongodb.MongoException;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.result.UpdateResult;
import io.writeguard.internal.Checks;
import io.writeguard.path.InvalidPathException;
import io.writeguard.path.PathSegments;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonValue;

/**
 * Finds documents whose version field is not a non-negative int64, and repairs the ones that have
 * exactly one safe meaning.
 *
 * <p>Why the repair is a compare-and-set: the collection is live while we fix it. Between our
 * read of {@code {_id: 7, version: "12"}} and our write, a writer may have moved the version on.
 * So every repair is one conditional update whose filter holds the exact value read
 * <em>and its BSON type</em>:
 *
 * <pre>{@code
 * updateOne({_id: 7, version: {$type: "string", $eq: "12"}}, {$set: {version: NumberLong(12)}})
 * updateOne({_id: 8, version: {$exists: false}},             {$set: {version: NumberLong(0)}})
 * updateOne({_id: 9, version: {$type: "null"}},              {$set: {version: NumberLong(0)}})
 * }</pre>
 *
 * The {@code $type} matters: MongoDB compares numbers by value, so {@code {version: 5.0}} also
 * matches an int32 or int64 5 that a writer just stored, and {@code {version: null}} also matches
 * a missing field. {@code matchedCount == 0} means the document changed (or was deleted) since
 * the read; it is counted as {@link FixOutcome#CHANGED_CONCURRENTLY} and left alone.
 *
 * <p>Matched but not modified means the server compared the int64 with the int32/double by value
 * and kept the old one (mongo-java-server does this; MongoDB compares BSON bytes and converts).
 * The auditor then converts by replacing the whole document, still as a compare-and-set: it
 * reads the document, and replaces it only if nothing in it changed since, with a filter on the
 * version's exact value and type, every other top-level field's type and value (arrays compared
 * whole, not "contains"), and the number of fields, so a field added, removed or rewritten
 * meanwhile makes the replace match nothing ({@link FixOutcome#CHANGED_CONCURRENTLY}). What it
 * cannot see: a number nested inside a sub-document or array retyped to an equal number
 * (int32 7 to int64 7); the replace would put the old type back, never an old value. A document
 * with a top-level field name the filter cannot address (one with a {@code .} or a leading
 * {@code $}) is left alone and reported as {@link FixOutcome#NOT_APPLIED_BY_SERVER}.
 *
 * <p>The scan reads only {@code _id} and the version field, in {@code _id} order (an index scan
 * on a real server, so no document is read twice). The version field is one top-level field
 * name. Thread-safe: holds only immutable configuration; concurrent scans are independent.
 */
public final class VersionAuditor {
  public static final String DEFAULT_VERSION_FIELD = "version";
  public static final int DEFAULT_SAMPLE_LIMIT = 20;
  /** Keeps getMore calls frequent while a slow fix pass works through a batch. */
  private static final int BATCH_SIZE = 1000;

  private final MongoCollection<BsonDocument> collection;
  private final String namespace;
  private final String versionField;
  private final int sampleLimit;
  /** Test seam: runs after the whole-document read of the replace path, before the replace. */
  private final Consumer<BsonValue> beforeReplace;

  private VersionAuditor(Builder b) {
    MongoCollection<BsonDocument> c = b.collection.withDocumentClass(BsonDocument.class);
    // matchedCount is our only concurrency signal: it needs acknowledged writes.
    this.collection = c.getWriteConcern().isAcknowledged() ? c : c.withWriteConcern(WriteConcern.ACKNOWLEDGED);
    this.namespace = c.getNamespace().getFullName();
    this.versionField = b.versionField;
    this.sampleLimit = b.sampleLimit;
    this.beforeReplace = b.beforeReplace;
  }

  /** A builder for an auditor of {@code collection} (any document class). */
  public static Builder builder(MongoCollection<?> collection) {
    return new Builder(collection);
  }

  /**
   * Checks a version field name: one top-level field name (see {@link PathSegments}), not
   * {@code _id}.
   *
   * @return {@code name}
   * @throws IllegalArgumentException naming the value and the rule it breaks
   */
  public static String checkVersionField(String name) {
    try {
      PathSegments.checkField(name);
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException("versionField must be a top-level field name, was "
          + Checks.quote(name) + ": " + e.getMessage(), e);
    }
    if (name.equals("_id")) {
      throw new IllegalArgumentException("versionField must not be '_id'");
    }
    return name;
  }

  public String versionField() {
    return versionField;
  }

  /**
   * Reads every document once and reports the problems found.
   *
   * @throws VersionAuditException when MongoDB fails mid-scan
   */
  public AuditReport scan() {
    AuditReport.Tally tally = new AuditReport.Tally(namespace, versionField, sampleLimit);
    scan(tally, tally::finding);
    return tally.report();
  }

  /**
   * Reads every document once and hands each finding to {@code each}, in {@code _id} order.
   *
   * @return the number of documents read
   * @throws VersionAuditException when MongoDB fails mid-scan
   */
  public long scan(Consumer<VersionFinding> each) {
    AuditReport.Tally tally = new AuditReport.Tally(namespace, versionField, 0);
    scan(tally, Objects.requireNonNull(each, "each"));
    return tally.scanned();
  }

  /**
   * Reads every document once and repairs each fixable finding right after reading it, with a
   * filter on the exact value read. Documents that need a person are counted, not written.
   *
   * @throws VersionAuditException when MongoDB fails; repairs made before it stand
   */
  public FixReport fix() {
    AuditReport.Tally tally = new AuditReport.Tally(namespace, versionField, sampleLimit);
    Map<VersionProblem, Long> fixed = new EnumMap<>(VersionProblem.class);
    Map<VersionProblem, Long> changed = new EnumMap<>(VersionProblem.class);
    Map<VersionProblem, Long> notApplied = new EnumMap<>(VersionProblem.class);
    scan(tally, finding -> {
      tally.finding(finding);
      FixOutcome outcome = fixOrFail(finding, tally.scanned());
      if (outcome == FixOutcome.FIXED) {
        fixed.merge(finding.problem(), 1L, Long::sum);
      } else if (outcome == FixOutcome.CHANGED_CONCURRENTLY) {
        changed.merge(finding.problem(), 1L, Long::sum);
      } else if (outcome == FixOutcome.NOT_APPLIED_BY_SERVER) {
        notApplied.merge(finding.problem(), 1L, Long::sum);
      }
    });
    return new FixReport(tally.report(), fixed, changed, notApplied);
  }

  /**
   * Repairs one document if its version still holds exactly the value in {@code finding}.
   *
   * @return {@link FixOutcome#FIXED}, {@link FixOutcome#CHANGED_CONCURRENTLY} when it no longer
   *     does (nothing written), {@link FixOutcome#NEEDS_PERSON} for a kind with no safe repair,
   *     or {@link FixOutcome#NOT_APPLIED_BY_SERVER} when the server kept an equal number's type
   * @throws VersionAuditException when MongoDB fails
   */
  public FixOutcome fix(VersionFinding finding) {
    return fixOrFail(Objects.requireNonNull(finding, "finding"), -1);
  }

  private FixOutcome fixOrFail(VersionFinding finding, long documentsRead) {
    if (!finding.problem().fixable()) {
      return FixOutcome.NEEDS_PERSON;
    }
    BsonDocument filter = new BsonDocument("_id", finding.id())
        .append(versionField, finding.unchangedCondition());
    BsonDocument update = new BsonDocument("$set",
        new BsonDocument(versionField, finding.repairedValue()));
    UpdateResult result;
    try {
      result = collection.updateOne(filter, update);
    } catch (MongoException e) {
      throw new VersionAuditException("version fix of " + namespace + " failed on _id "
          + finding.idText() + (documentsRead >= 0 ? " after reading " + documentsRead
          + " documents" : "") + ": " + e.getMessage(), namespace, Math.max(documentsRead, 0), e);
    }
    if (result.getMatchedCount() == 0) {
      return FixOutcome.CHANGED_CONCURRENTLY;
    }
    // The filter pinned a non-int64 type and we set an int64, so a real change always modifies.
    if (result.getModifiedCount() > 0) {
      return FixOutcome.FIXED;
    }
    if (finding.problem() != VersionProblem.INT32
        && finding.problem() != VersionProblem.INTEGRAL_DOUBLE) {
      return FixOutcome.NOT_APPLIED_BY_SERVER;
    }
    try {
      return convertByReplacing(finding);
    } catch (MongoException e) {
      throw new VersionAuditException("version fix (replace) of " + namespace + " failed on _id "
          + finding.idText() + (documentsRead >= 0 ? " after reading " + documentsRead
          + " documents" : "") + ": " + e.getMessage(), namespace, Math.max(documentsRead, 0), e);
    }
  }

  /** The replace path of the class doc, for a server whose $set kept the number's type. */
  private FixOutcome convertByReplacing(VersionFinding finding) {
    BsonDocument byId = new BsonDocument("_id", finding.id());
    BsonDocument current = collection.find(byId).first();
    BsonValue version = current == null ? null : current.get(versionField);
    if (version == null || !version.equals(finding.value().orElse(null))) {
      return FixOutcome.CHANGED_CONCURRENTLY;
    }
    beforeReplace.accept(finding.id());
    Optional<BsonDocument> unchanged =
        UnchangedDocumentFilter.of(current, versionField, finding.unchangedCondition());
    if (unchanged.isEmpty()) {
      return FixOutcome.NOT_APPLIED_BY_SERVER;
    }
    BsonDocument replacement = current.clone();
    replacement.put(versionField, finding.repairedValue());
    UpdateResult result = collection.replaceOne(unchanged.get(), replacement);
    if (result.getMatchedCount() == 0) {
      return FixOutcome.CHANGED_CONCURRENTLY;
    }
    if (result.getModifiedCount() > 0) {
      return FixOutcome.FIXED;
    }
    // mongo-java-server stores the replacement as given but counts "modified" by comparing
    // numbers by value, so read the type back: an int64 there is our conversion (a writer's
    // $inc keeps an int32 an int32 and turns our int64 into a larger int64).
    BsonDocument after = collection.find(byId).projection(Projections.include(versionField)).first();
    return after != null && after.get(versionField) instanceof BsonInt64
        ? FixOutcome.FIXED : FixOutcome.NOT_APPLIED_BY_SERVER;
  }

  private void scan(AuditReport.Tally tally, Consumer<VersionFinding> each) {
    try (MongoCursor<BsonDocument> cursor = collection.find()
        .projection(Projections.include(versionField))
        .sort(Sorts.ascending("_id"))
        .batchSize(BATCH_SIZE)
        .iterator()) {
      while (cursor.hasNext()) {
        BsonDocument doc = cursor.next();
        tally.document();
        VersionFinding.classify(doc.get("_id"), doc.get(versionField)).ifPresent(each);
      }
    } catch (MongoException e) {
      throw new VersionAuditException("version audit of " + namespace + " stopped after reading "
          + tally.scanned() + " documents: " + e.getMessage(), namespace, tally.scanned(), e);
    }
  }

  /**
   * Configures a {@link VersionAuditor}. Not thread-safe; {@link #build()} copies the settings.
   */
  public static final class Builder {
    private final MongoCollection<?> collection;
    private String versionField = DEFAULT_VERSION_FIELD;
    private int sampleLimit = DEFAULT_SAMPLE_LIMIT;
    private Consumer<BsonValue> beforeReplace = id -> { };

    private Builder(MongoCollection<?> collection) {
      this.collection = Objects.requireNonNull(collection, "collection must not be null");
    }

    /** The version field, one top-level name (default {@code version}). */
    public Builder versionField(String name) {
      this.versionField = checkVersionField(name);
      return this;
    }

    /** How many findings of each kind a report keeps for display (default 20; 0 keeps none). */
    public Builder sampleLimit(int limit) {
      this.sampleLimit = Checks.atLeast("sampleLimit", limit, 0);
      return this;
    }

    /** Test seam: {@code hook} runs between the replace path's read and its replace. */
    Builder beforeReplace(Consumer<BsonValue> hook) {
      this.beforeReplace = Objects.requireNonNull(hook, "hook");
      return this;
    }

    public VersionAuditor build() {
      return new VersionAuditor(this);
    }
  }
}
