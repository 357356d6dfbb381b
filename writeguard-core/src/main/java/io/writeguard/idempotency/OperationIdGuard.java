package io.writeguard.idempotency;

import io.writeguard.internal.Deadline;
import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.ne;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.CountOptions;
import com.mongodb.client.model.PushOptions;
import com.mongodb.client.model.Updates;
import io.writeguard.internal.Checks;
import io.writeguard.version.VersionPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * Makes one update of one document idempotent without a separate store: the document keeps the
 * ids of the last operations applied to it, and the update only matches when its id is not
 * among them.
 * <pre>{@code
 * updateOne({_id: id, <condition>, _ops: {$ne: opId}},
 *           {<update>, $push: {_ops: {$each: [opId], $slice: -keep}}})
 * }</pre>
 * Filter and {@code $push} are one atomic write, so a retried update (a timeout whose first try
 * did land, a re-delivered message) applies once. The list is bounded by {@code $slice}: an id
 * older than the last {@code keep} operations on that document is forgotten, so {@code keep}
 * must exceed the number of operations that can happen between a try and its retry.
 *
 * <p>On documents a versioned mutator also reads, build it with {@link Builder#versionPolicy}
 * so each applied update raises the version too.
 *
 * <p>When nothing matched, one more read on {@code {_id, _ops: opId}} tells "already applied"
 * from "not matched". The shape: {@code {_id: ..., ..., _ops: ["op-17", "op-18", ...]}}.
 * Immutable and thread-safe.
 */
public final class OperationIdGuard {
  private final String field;
  private final int keep;
  private final VersionPolicy versionPolicy;

  private OperationIdGuard(Builder b) {
    this.field = b.field;
    this.keep = b.keep;
    this.versionPolicy = b.versionPolicy;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** {@link #apply(MongoCollection, Object, Bson, Bson, String)} without a condition. */
  public OpResult apply(MongoCollection<Document> collection, Object id, Bson update,
      String opId) {
    return apply(collection, id, null, update, opId);
  }

  /**
   * Applies {@code update} to the document {@code id} once per {@code opId}.
   *
   * @param condition extra filter (may be null), e.g. a balance check
   * @param update operator update ({@code $set}, {@code $inc}, ...); must not touch the ops field
   * @throws IllegalArgumentException blank opId, a replacement document, or an update that
   *     writes the ops field
   */
  public OpResult apply(MongoCollection<Document> collection, Object id, Bson condition,
      Bson update, String opId) {
    Objects.requireNonNull(collection, "collection");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(update, "update");
    Checks.notBlank("opId", opId);
    checkUpdate(update.toBsonDocument(BsonDocument.class, collection.getCodecRegistry()));

    List<Bson> filters = new ArrayList<>();
    filters.add(eq("_id", id));
    if (condition != null) {
      filters.add(condition);
    }
    filters.add(ne(field, opId));
    Bson change = versionPolicy == null ? update : versionPolicy.raising(update);
    Bson withOp = Updates.combine(change,
        Updates.pushEach(field, List.of(opId), new PushOptions().slice(-keep)));
    if (Deadline.boundedWrite(collection).updateOne(and(filters), withOp).getMatchedCount() == 1) {
      return OpResult.APPLIED;
    }
    return isRecorded(collection, id, opId) ? OpResult.ALREADY_APPLIED : OpResult.NOT_MATCHED;
  }

  /**
   * True when document {@code id} records {@code opId} as applied: a read, so it also settles
   * an {@link #apply} whose reply was lost, without sending the write again.
   */
  public boolean isRecorded(MongoCollection<Document> collection, Object id, String opId) {
    Objects.requireNonNull(collection, "collection");
    Objects.requireNonNull(id, "id");
    Checks.notBlank("opId", opId);
    return Deadline.bounded(collection).countDocuments(and(eq("_id", id), eq(field, opId)),
        new CountOptions().limit(1)) > 0;
  }

  private void checkUpdate(BsonDocument rendered) {
    for (Map.Entry<String, BsonValue> operator : rendered.entrySet()) {
      if (!operator.getKey().startsWith("$")) {
        throw new IllegalArgumentException("update must use operators ($set, $inc, ...), not a"
            + " replacement document; found field " + Checks.quote(operator.getKey()));
      }
      if (operator.getValue().isDocument()) {
        for (String path : operator.getValue().asDocument().keySet()) {
          if (path.equals(field) || path.startsWith(field + ".")) {
            throw new IllegalArgumentException("update must not write the operation-id field "
                + Checks.quote(field) + ", but " + operator.getKey() + " writes "
                + Checks.quote(path));
          }
        }
      }
    }
  }

  public String field() {
    return field;
  }

  public int keep() {
    return keep;
  }

  /** Builds an {@link OperationIdGuard}. Not thread-safe. */
  public static final class Builder {
    private String field = "_ops";
    private int keep = 64;
    private VersionPolicy versionPolicy;

    private Builder() {}

    /**
     * The documents are versioned (a {@code VersionedUpdater} writes them too): every applied
     * update also raises {@code policy}'s version, so a versioned mutator that read the
     * document before sees a conflict instead of writing back what it read. Default: none.
     */
    public Builder versionPolicy(VersionPolicy policy) {
      this.versionPolicy = Objects.requireNonNull(policy, "versionPolicy");
      return this;
    }

    /** The array of applied operation ids; default {@code _ops}. */
    public Builder field(String field) {
      Checks.notBlank("field", field);
      if (field.startsWith("$") || field.contains(".") || field.indexOf('\0') >= 0
          || field.equals("_id")) {
        throw new IllegalArgumentException("field must be a plain top-level field name, was "
            + Checks.quote(field));
      }
      this.field = field;
      return this;
    }

    /** How many recent operation ids each document keeps; default 64. */
    public Builder keep(int keep) {
      this.keep = Checks.atLeast("keep", keep, 1);
      return this;
    }

    public OperationIdGuard build() {
      if (versionPolicy != null && versionPolicy.field().equals(field)) {
        throw new IllegalArgumentException("the operation-id field and the version field must"
            + " differ, both were " + Checks.quote(field));
      }
      return new OperationIdGuard(this);
    }
  }
}
