package io.writeguard.update;

import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.conversions.Bson;

/**
 * The four round trips the update loop makes, so the loop can be tested against scripted
 * failures without a server. Package-private; the real one is {@link MongoStore}.
 * Implementations are thread-safe.
 */
interface Store {

  /** The collection name, for events and messages. */
  String collectionName();

  /** The codecs used to turn a user's {@code Bson} into BSON and raw reads into Documents. */
  CodecRegistry codecRegistry();

  /** The whole document, or null when there is none. */
  RawBsonDocument read(Object id);

  /** Only {@code _id} and {@code versionField}, or null when there is no document. */
  RawBsonDocument probe(Object id, String versionField);

  /**
   * Writes {@code update} to the document matching {@code filter}.
   *
   * @param returnAfter true: findOneAndUpdate with ReturnDocument.AFTER; false: updateOne
   * @return the outcome; never null
   */
  WriteResult update(Bson filter, BsonDocument update, boolean returnAfter);

  /** Like {@link #update} with findOneAndReplace / replaceOne. */
  WriteResult replace(Bson filter, Document replacement, boolean returnAfter);

  /** What a conditional write did: matched or not, and the document after it when fetched. */
  record WriteResult(boolean matched, Document after) {
    static final WriteResult MISSED = new WriteResult(false, null);
  }
}
