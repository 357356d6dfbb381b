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

  /**
   * {@link #update} of a document that must also meet {@code guard} (conditions on fields
   * other than {@code _id} and the version, from a group-commit round's merged write): a
   * document that fails them is missed, as a moved version is.
   */
  default WriteResult update(Bson filter, BsonDocument guard, BsonDocument update) {
    return update(withGuard(filter, guard, codecRegistry()), update, false);
  }

  /** {@code filter} with {@code guard}'s conditions added to it (one document, no $and). */
  static BsonDocument withGuard(Bson filter, BsonDocument guard, CodecRegistry registry) {
    BsonDocument combined = filter.toBsonDocument(BsonDocument.class, registry).clone();
    if (guard != null) {
      combined.putAll(guard);
    }
    return combined;
  }

  /**
   * The collection's indexes that can refuse a write, as of at most a refresh interval ago
   * ({@link WriteConstraints}); {@link WriteConstraints#NONE} where none are known to apply.
   */
  default WriteConstraints constraints() {
    return WriteConstraints.NONE;
  }

  /**
   * {@link #constraints} read now, and kept for the next rounds: after a merged write (to
   * find an index created since the last read) and after a merged write was refused.
   */
  default WriteConstraints freshConstraints() {
    return constraints();
  }

  /**
   * Like {@link #update} with findOneAndReplace / replaceOne. {@code replacement} is a copy the
   * caller made for this one write and does not use again: the store may change it.
   */
  WriteResult replace(Bson filter, Document replacement, boolean returnAfter);

  /** What a conditional write did: matched or not, and the document after it when fetched. */
  record WriteResult(boolean matched, Document after) {
    static final WriteResult MISSED = new WriteResult(false, null);
  }
}
