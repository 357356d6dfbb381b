package io.writeguard.update;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndReplaceOptions;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.result.UpdateResult;
import io.writeguard.internal.BoundedViews;
import io.writeguard.internal.Deadline;
import io.writeguard.internal.OneCopyRawCodec;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.conversions.Bson;

/**
 * {@link Store} on a driver collection. Reads come back as {@link RawBsonDocument}: immutable
 * bytes the loop decodes into a private {@link Document} for each use, so nothing the mutator
 * does to its copy can leak into what the loop reports ({@link OneCopyRawCodec} copies each
 * from the reply once). Every operation is bounded by the calling thread's {@link Deadline} (a
 * write by the time left plus its grace; {@link BoundedViews} reuses the bounded collection
 * while the bound is the same). Thread-safe (the driver's collection is).
 */
final class MongoStore implements Store {
  // The driver's default for findOneAndUpdate is BEFORE; a CAS caller wants what it wrote.
  private static final FindOneAndUpdateOptions UPDATE_AFTER =
      new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER).upsert(false);
  private static final FindOneAndReplaceOptions REPLACE_AFTER =
      new FindOneAndReplaceOptions().returnDocument(ReturnDocument.AFTER).upsert(false);

  /** How long the collection's indexes are taken as read (between merged writes). */
  static final long CONSTRAINTS_REFRESH_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MongoStore.class);

  private final MongoCollection<Document> collection;
  private final BoundedViews<Document> documents;
  private final BoundedViews<RawBsonDocument> raw;
  private final io.writeguard.Ticker ticker;
  private volatile WriteConstraints constraints;
  private volatile long constraintsReadAt;

  MongoStore(MongoCollection<Document> collection) {
    this(collection, io.writeguard.Ticker.system());
  }

  /** @param ticker when the collection's indexes are read again */
  MongoStore(MongoCollection<Document> collection, io.writeguard.Ticker ticker) {
    this.collection = collection;
    this.documents = new BoundedViews<>(collection);
    this.raw = new BoundedViews<>(OneCopyRawCodec.rawView(collection));
    this.ticker = ticker;
  }

  /**
   * The indexes that can refuse a write, read again at most every
   * {@link #CONSTRAINTS_REFRESH_NANOS} by the thread that finds them stale (two may read at
   * once; either answer is current), and after every merged write ({@link #freshConstraints}).
   * If they cannot be read, nothing is merged until they can ({@link WriteConstraints#UNKNOWN}).
   */
  @Override
  public WriteConstraints constraints() {
    WriteConstraints known = constraints;
    long now = ticker.nanoTime();
    if (known != null && now - constraintsReadAt < CONSTRAINTS_REFRESH_NANOS) {
      return known;
    }
    return readConstraints(now, false);
  }

  /** Read with a write's grace: after a merged write, it decides what its callers are told. */
  @Override
  public WriteConstraints freshConstraints() {
    return readConstraints(ticker.nanoTime(), true);
  }

  private WriteConstraints readConstraints(long now, boolean afterWrite) {
    WriteConstraints read;
    try {
      // From the primary, which enforces them: a lagging secondary may not list one yet.
      MongoCollection<Document> primary =
          collection.withReadPreference(com.mongodb.ReadPreference.primary());
      MongoCollection<Document> bounded = afterWrite
          ? Deadline.boundedWrite(primary) : Deadline.bounded(primary);
      List<BsonDocument> indexes = bounded.listIndexes(BsonDocument.class)
          .into(new java.util.ArrayList<>());
      read = WriteConstraints.of(indexes);
    } catch (RuntimeException e) {
      LOG.warn("could not read the indexes of {}; group commit sends each"
          + " update alone until they can be read: {}", collectionName(), e.toString());
      read = WriteConstraints.UNKNOWN;
    }
    constraints = read;
    constraintsReadAt = now;
    return read;
  }

  /** The collection this store reads and writes. */
  MongoCollection<Document> collection() {
    return collection;
  }

  @Override
  public String collectionName() {
    return collection.getNamespace().getCollectionName();
  }

  @Override
  public CodecRegistry codecRegistry() {
    return collection.getCodecRegistry();
  }

  @Override
  public RawBsonDocument read(Object id) {
    return raw.forRead().find(Filters.eq("_id", id)).first();
  }

  @Override
  public RawBsonDocument probe(Object id, String versionField) {
    return raw.forRead().find(Filters.eq("_id", id))
        .projection(Projections.include("_id", versionField))
        .first();
  }

  @Override
  public WriteResult update(Bson filter, BsonDocument update, boolean returnAfter) {
    if (returnAfter) {
      Document after =
          documents.forWrite().findOneAndUpdate(filter, update, UPDATE_AFTER);
      return after == null ? WriteResult.MISSED : new WriteResult(true, after);
    }
    return matched(documents.forWrite().updateOne(filter, update));
  }

  @Override
  public WriteResult replace(Bson filter, Document replacement, boolean returnAfter) {
    if (returnAfter) {
      Document after =
          documents.forWrite().findOneAndReplace(filter, replacement, REPLACE_AFTER);
      return after == null ? WriteResult.MISSED : new WriteResult(true, after);
    }
    return matched(documents.forWrite().replaceOne(filter, replacement));
  }

  private static WriteResult matched(UpdateResult result) {
    // matchedCount, never modifiedCount: the compare-and-set asks "did the version I read
    // still match?", and only matchedCount answers that; modifiedCount answers "did any byte
    // change?", a different question.
    return result.getMatchedCount() == 0 ? WriteResult.MISSED : new WriteResult(true, null);
  }
}
