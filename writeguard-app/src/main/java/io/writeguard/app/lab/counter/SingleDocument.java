package io.writeguard.app.lab.counter;

import com.mongodb.client.MongoCollection;
import java.util.List;
import org.bson.Document;

/**
 * The single-document balance used by {@code naive}, {@code atomic} and {@code optimistic}:
 * {@code {_id: "g0-c0", balance: 120, version: 7, ledger: [{op: 5, d: -3}, ...]}} (int64
 * values). Stateless.
 */
final class SingleDocument {
  private SingleDocument() {}

  static void open(MongoCollection<Document> collection, List<String> counterIds, long balance) {
    collection.insertMany(counterIds.stream()
        .map(id -> new Document("_id", id).append(CounterTotals.FIELD, balance)
            .append("version", 0L).append(CounterOp.LEDGER, List.of()))
        .toList());
  }

  /** The balance field of {@code doc} as a long. */
  static long balance(Document doc) {
    Object v = doc.get(CounterTotals.FIELD);
    if (!(v instanceof Number n)) {
      throw new IllegalStateException("balance " + doc.get("_id") + " has no numeric '"
          + CounterTotals.FIELD + "' field, was " + v);
    }
    return n.longValue();
  }
}
