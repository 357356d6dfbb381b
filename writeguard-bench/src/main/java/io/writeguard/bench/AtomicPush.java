package io.writeguard.bench;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * Another atomic operator, on request ({@code --contenders atomic-push}): one
 * {@code updateOne({_id}, {$push: {ids: n}})}. The array grows by one element per operation,
 * and the embedded server's cost per {@code $push} grows with it, so it is not the default
 * ceiling ({@link AtomicInc} is). Thread-safe.
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
