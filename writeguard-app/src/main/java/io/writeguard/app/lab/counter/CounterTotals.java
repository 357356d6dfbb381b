package io.writeguard.app.lab.counter;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.or;

import com.mongodb.client.MongoCollection;
import java.util.regex.Pattern;
import org.bson.Document;

/**
 * Reads a balance's total from the documents, whatever the strategy's layout, so that the
 * count of lost updates never depends on the code under test. It sums, over the documents
 * {@code {_id: id}} and {@code {counter: id}}, every field named {@code balance} or
 * {@code balance_shard_<n>}:
 *
 * <pre>{@code
 * single document:  { _id: "g0-c0", balance: 120, version: 7, ledger: [...] }
 * shard fields:     { _id: "g0-c0", balance_shard_0: 12, ..., balance_shard_9: 3 }
 * shard documents:  { _id: "g0-c0#3", counter: "g0-c0", shard: 3, balance: 75 }   (one per shard)
 * }</pre>
 *
 * One {@code find}: on the embedded server it is answered under the collection's lock, so a
 * consistent sum; on a real server the shard documents may be read at slightly different
 * moments (like {@link io.writeguard.counter.ShardedCounter#total}). Stateless.
 */
final class CounterTotals {
  static final String FIELD = "balance";
  private static final Pattern SHARD_FIELD = Pattern.compile("balance_shard_\\d+");

  private CounterTotals() {}

  static long read(MongoCollection<Document> collection, String counterId) {
    long total = 0;
    for (Document doc : collection.find(or(eq("_id", counterId), eq("counter", counterId)))) {
      total += balanceOf(doc);
    }
    return total;
  }

  /** The sum of the balance fields of one document. */
  static long balanceOf(Document doc) {
    long total = 0;
    for (var e : doc.entrySet()) {
      if ((e.getKey().equals(FIELD) || SHARD_FIELD.matcher(e.getKey()).matches())
          && e.getValue() instanceof Number n) {
        total += n.longValue();
      }
    }
    return total;
  }
}
