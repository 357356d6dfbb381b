package io.writeguard.bench;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * The ceiling: no read at all, one {@code updateOne({_id}, {$push: {ids: n}})}; the server
 * applies it atomically. What a correct update of one document can reach on this server, when
 * the change can be said as an operator. Thread-safe.
 */
final class AtomicPush implements Contender {
  static final String NAME = "atomic-push";

  private final MongoCollection<Document> collection;

  AtomicPush(Backends backends) {
    this.collection = backends.hot();
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int add(ObjectId docId, long opId) {
    if (collection.updateOne(eq("_id", docId), Updates.push(HotDocument.IDS, opId))
        .getMatchedCount() != 1) {
      throw new IllegalStateException("no document _id=" + docId);
    }
    return 1;
  }
}
