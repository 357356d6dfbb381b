package io.writeguard.counter;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gte;
import static com.mongodb.client.model.Filters.in;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.Document;

/**
 * Shards as documents: {@code {_id: "<counter>#<i>", counter: "<counter>", shard: i,
 * balance: 7}} (int64 value; a missing document counts as 0). The {@code _id} is unambiguous
 * because the shard index after the last {@code #} never contains one. Thread-safe.
 */
final class DocumentShardStore implements ShardStore {
  private final MongoCollection<Document> collection;
  private final String field;
  private final int shards;

  DocumentShardStore(MongoCollection<Document> collection, String field, int shards) {
    this.collection = collection;
    this.field = field;
    this.shards = shards;
  }

  static String shardId(String counterId, int shard) {
    return counterId + "#" + shard;
  }

  @Override
  public void add(String counterId, int shard, long amount) {
    Upserts.upsert(collection, eq("_id", shardId(counterId, shard)), Updates.combine(
        Updates.inc(field, amount),
        Updates.setOnInsert("counter", counterId),
        Updates.setOnInsert("shard", shard)));
  }

  @Override
  public boolean tryTake(String counterId, int shard, long amount) {
    return collection.updateOne(and(eq("_id", shardId(counterId, shard)), gte(field, amount)),
        Updates.inc(field, -amount)).getMatchedCount() == 1;
  }

  @Override
  public long[] read(String counterId) {
    List<String> ids = new ArrayList<>(shards);
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < shards; i++) {
      String id = shardId(counterId, i);
      ids.add(id);
      index.put(id, i);
    }
    long[] values = new long[shards];
    for (Document doc : collection.find(in("_id", ids))) {
      Integer i = index.get(doc.get("_id"));
      if (i != null) {
        values[i] = FieldShardStore.asLong(doc.get(field));
      }
    }
    return values;
  }

  @Override
  public long readOne(String counterId, int shard) {
    Document doc = collection.find(eq("_id", shardId(counterId, shard))).first();
    return doc == null ? 0L : FieldShardStore.asLong(doc.get(field));
  }
}
