package io.writeguard.bench;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * The ceiling: no read at all, one {@code updateOne({_id}, {$inc: {"words.<n/64>": 2^(n%64)}})},
 * which the server applies atomically (a missing word counts as 0). Operation ids are unique,
 * so each power of two is added once and the sum is the bitwise OR of the operations' bits: the
 * same per-operation trace as the others in a document that stays as small (an operation
 * applied twice would carry into another bit and show up too). The embedded server has no
 * {@code $bit}. What a correct update of one document reaches on this server when the change
 * can be said as an operator. Thread-safe.
 */
final class AtomicInc implements Contender {
  static final String NAME = "atomic-inc";

  private final MongoCollection<Document> collection;

  AtomicInc(Backends backends) {
    this.collection = backends.hot();
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int add(ObjectId docId, long opId) {
    int index = HotDocument.checkedIndex(opId);
    String word = HotDocument.WORDS + "." + (index / 64);
    if (collection.updateOne(eq("_id", docId), Updates.inc(word, 1L << (index % 64)))
        .getMatchedCount() != 1) {
      throw new IllegalStateException("no document _id=" + docId);
    }
    return 1;
  }
}
