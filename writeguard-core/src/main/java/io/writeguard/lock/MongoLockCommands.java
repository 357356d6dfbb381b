package io.writeguard.lock;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.setOnInsert;

import com.mongodb.client.model.Projections;
import io.writeguard.internal.UsualIds;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.conversions.Bson;

/**
 * The filters and updates the MongoDB lease lock sends on every take, release and renewal, as
 * BSON ready to send. Not API; immutable and thread-safe.
 *
 * <p>Why. Built with the driver's {@code Filters} and {@code Updates}, a take's filter and
 * update were rendered anew on every call: some twenty builders, each value looked up in the
 * codec registry, about 10 KB of garbage and a few microseconds per take, the same again in
 * part for the release, for every lock user. Most of it never changes: the expiry test, the
 * dates and marks a take or release sets. Those parts are rendered once here, with the
 * collection's registry, and shared by every command (the driver only reads the documents it
 * sends); the parts that change (key, owner, attempt, lease, block) are put in per call, as
 * the registry encodes them ({@link UsualIds}: directly for the driver's own string and long
 * codecs, else through the registry). What is sent is the BSON the builders rendered, field for
 * field; {@code MongoLockCommandsTest} holds the two equal.
 */
final class MongoLockCommands {
  private final CodecRegistry registry;
  private final UsualIds values;
  private final BsonDocument expired;
  private final BsonDocument ownerNull;
  private final BsonDocument takeDates;
  private final BsonDocument takeMarks;
  private final BsonDocument release;
  private final BsonDocument renewal;
  private final BsonDocument releaseProjection;

  MongoLockCommands(CodecRegistry registry) {
    this.registry = registry;
    this.values = UsualIds.of(registry);
    this.expired = render(expiredFor(0));
    this.ownerNull = render(eq(MongoLockStore.OWNER, null));
    BsonDocument takeConstants = render(combine(currentDate(MongoLockStore.ACQUIRED_AT),
        currentDate(MongoLockStore.RENEWED_AT), setOnInsert(MongoLockStore.FRESH, true)));
    this.takeDates = takeConstants.getDocument("$currentDate");
    this.takeMarks = takeConstants.getDocument("$setOnInsert");
    this.release = render(combine(set(MongoLockStore.OWNER, null),
        currentDate(MongoLockStore.RELEASED_AT)));
    this.renewal = render(currentDate(MongoLockStore.RENEWED_AT));
    this.releaseProjection = render(Projections.include(MongoLockStore.ACQUIRED_AT,
        MongoLockStore.CONTENDED_AT));
  }

  /**
   * {@code and(eq(_id, key), or(eq(owner, null), expired, and(eq(owner, owner),
   * eq(attempt, attempt))))}: the key free, expired, or already this attempt's (a resent take).
   */
  BsonDocument takeFilter(String key, String owner, String attempt) {
    BsonDocument resent = and(field(MongoLockStore.OWNER, owner),
        field(MongoLockStore.ATTEMPT, attempt));
    BsonDocument free = new BsonDocument("$or", array(ownerNull, expired, resent));
    return and(field("_id", key), free);
  }

  /**
   * {@code combine(set(owner), set(attempt), set(leaseMs), inc(token, block),
   * currentDate(acquiredAt), currentDate(renewedAt), setOnInsert(fresh, true))}.
   */
  BsonDocument takeUpdate(String owner, String attempt, long leaseMs, long block) {
    BsonDocument sets = new BsonDocument(MongoLockStore.OWNER, value(owner))
        .append(MongoLockStore.ATTEMPT, value(attempt))
        .append(MongoLockStore.LEASE_MS, value(leaseMs));
    return new BsonDocument("$set", sets)
        .append("$inc", new BsonDocument(MongoLockStore.TOKEN, value(block)))
        .append("$currentDate", takeDates)
        .append("$setOnInsert", takeMarks);
  }

  /** {@code and(eq(_id, key), eq(owner, owner), eq(attempt, attempt))}: still this holder's. */
  BsonDocument ours(String key, String owner, String attempt) {
    return and(field("_id", key), field(MongoLockStore.OWNER, owner),
        field(MongoLockStore.ATTEMPT, attempt));
  }

  /** {@code combine(set(owner, null), currentDate(releasedAt))}. */
  BsonDocument release() {
    return release;
  }

  /** {@code currentDate(renewedAt)}. */
  BsonDocument renewal() {
    return renewal;
  }

  /** {@code include(acquiredAt, contendedAt)}: what a release reads of the document it frees. */
  BsonDocument releaseProjection() {
    return releaseProjection;
  }

  /** {@code renewedAt + leaseMs + extraMs < $$NOW}, on the server's clock. */
  static Bson expiredFor(long extraMs) {
    List<Object> sum = new ArrayList<>(List.of("$" + MongoLockStore.RENEWED_AT,
        "$" + MongoLockStore.LEASE_MS));
    if (extraMs > 0) {
      sum.add(extraMs);
    }
    return new Document("$expr",
        new Document("$lt", List.of(new Document("$add", sum), "$$NOW")));
  }

  private static BsonDocument and(BsonDocument... clauses) {
    return new BsonDocument("$and", array(clauses));
  }

  private static BsonArray array(BsonDocument... elements) {
    BsonArray array = new BsonArray(elements.length);
    for (BsonDocument element : elements) {
      array.add(element);
    }
    return array;
  }

  /** {@code eq(name, value)} as the registry renders it. */
  private BsonDocument field(String name, Object value) {
    return new BsonDocument(name, value(value));
  }

  /** A string or long as the registry encodes it (a builder's value, e.g. {@code eq}'s). */
  private BsonValue value(Object value) {
    BsonValue direct = values.asBson(value);
    return direct != null ? direct : render(eq("v", value)).get("v");
  }

  private BsonDocument render(Bson bson) {
    return bson.toBsonDocument(BsonDocument.class, registry);
  }
}
