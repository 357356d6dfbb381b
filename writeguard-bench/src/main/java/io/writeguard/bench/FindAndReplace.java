package io.writeguard.bench;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * The plain read-change-write every lock contender runs while it holds its lock, and the naive
 * contender runs with no lock: {@code find}, set the bit in Java, {@code replaceOne} by
 * {@code _id}. Safe only if nobody else writes between the find and the replace.
 * {@code betweenReadAndWrite} lets a test force that interleaving. Thread-safe.
 */
final class FindAndReplace {
  private final MongoCollection<Document> collection;
  private final Runnable betweenReadAndWrite;

  FindAndReplace(MongoCollection<Document> collection, Runnable betweenReadAndWrite) {
    this.collection = collection;
    this.betweenReadAndWrite = betweenReadAndWrite;
  }

  void addBit(ObjectId docId, long opId) {
    Document doc = collection.find(eq("_id", docId)).first();
    if (doc == null) {
      throw new IllegalStateException("no document _id=" + docId + " in "
          + collection.getNamespace().getFullName());
    }
    doc.put(HotDocument.BITS, HotDocument.bitsWith(doc, opId));
    betweenReadAndWrite.run();
    if (collection.replaceOne(eq("_id", docId), doc).getMatchedCount() != 1) {
      throw new IllegalStateException("document _id=" + docId + " vanished");
    }
  }
}
