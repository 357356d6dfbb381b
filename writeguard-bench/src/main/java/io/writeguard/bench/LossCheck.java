package io.writeguard.bench;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import java.util.BitSet;
import java.util.List;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * The exact, per-operation check of a round: reads the final document and compares the
 * operations it holds with those the clients saw acknowledged.
 *
 * @param lost acknowledged operations missing from the final document
 * @param writtenNotAcked operations in the document whose client saw them fail
 */
record LossCheck(long lost, long writtenNotAcked) {

  static LossCheck of(MongoCollection<Document> hot, ObjectId docId, BitSet acked) {
    return of(hot, List.of(docId), acked);
  }

  /**
   * The same over several hot documents (one per client): each operation id is unique and goes to
   * one document only, so the union of what the documents hold is compared with what was
   * acknowledged.
   */
  static LossCheck of(MongoCollection<Document> hot, List<ObjectId> docIds, BitSet acked) {
    BitSet kept = new BitSet();
    for (ObjectId docId : docIds) {
      Document last = hot.find(eq("_id", docId)).first();
      if (last == null) {
        throw new IllegalStateException("the hot document _id=" + docId + " is gone");
      }
      kept.or(HotDocument.kept(last));
    }
    BitSet lost = (BitSet) acked.clone();
    lost.andNot(kept);
    BitSet extra = (BitSet) kept.clone();
    extra.andNot(acked);
    return new LossCheck(lost.cardinality(), extra.cardinality());
  }
}
