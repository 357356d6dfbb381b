package io.writeguard.update;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndReplaceOptions;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.result.UpdateResult;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.conversions.Bson;

/**
 * {@link Store} on a driver collection. Reads come back as {@link RawBsonDocument}: immutable
 * bytes the loop decodes into a private {@link Document} for each use, so nothing the mutator
 * does to its copy can leak into what the loop reports. Thread-safe (the driver's collection
 * is).
 */
final class MongoStore implements Store {
  // The driver's default for findOneAndUpdate is BEFORE; a CAS caller wants what it wrote.
  private static final FindOneAndUpdateOptions UPDATE_AFTER =
      new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER).upsert(false);
  private static final FindOneAndReplaceOptions REPLACE_AFTER =
      new FindOneAndReplaceOptions().returnDocument(ReturnDocument.AFTER).upsert(false);

  private final MongoCollection<Document> collection;
  private final MongoCollection<RawBsonDocument> raw;

  MongoStore(MongoCollection<Document> collection) {
    this.collection = collection;
    this.raw = collection.withDocumentClass(RawBsonDocument.class);
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
    return raw.find(Filters.eq("_id", id)).first();
  }

  @Override
  public RawBsonDocument probe(Object id, String versionField) {
    return raw.find(Filters.eq("_id", id))
        .projection(Projections.include("_id", versionField))
        .first();
  }

  @Override
  public WriteResult update(Bson filter, BsonDocument update, boolean returnAfter) {
    if (returnAfter) {
      Document after = collection.findOneAndUpdate(filter, update, UPDATE_AFTER);
      return after == null ? WriteResult.MISSED : new WriteResult(true, after);
    }
    return matched(collection.updateOne(filter, update));
  }

  @Override
  public WriteResult replace(Bson filter, Document replacement, boolean returnAfter) {
    if (returnAfter) {
      Document after = collection.findOneAndReplace(filter, replacement, REPLACE_AFTER);
      return after == null ? WriteResult.MISSED : new WriteResult(true, after);
    }
    return matched(collection.replaceOne(filter, replacement));
  }

  private static WriteResult matched(UpdateResult result) {
    // matchedCount, never modifiedCount: the compare-and-set asks "did the version I read
    // still match?", and only matchedCount answers that; modifiedCount answers "did any byte
    // change?", a different question.
    return result.getMatchedCount() == 0 ? WriteResult.MISSED : new WriteResult(true, null);
  }
}
