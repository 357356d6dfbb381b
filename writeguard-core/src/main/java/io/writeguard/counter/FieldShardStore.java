package io.writeguard.counter;

import io.writeguard.internal.Deadline;
import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gte;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Updates;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * Shards as fields of one document: {@code {_id: "<counter>", balance_shard_0: 7,
 * balance_shard_1: 3, ...}} (int64 values, a missing field counts as 0; any other value is a
 * {@link CorruptShardException}). Every write is one
 * {@code $inc} without an operation id, sent once: a lost reply is a
 * {@link io.writeguard.update.WriteOutcomeUnknownException}, never a second {@code $inc}.
 * Thread-safe.
 */
final class FieldShardStore implements ShardStore {
  private final ShardWrites writes;
  private final MongoCollection<Document> collection;
  private final String[] fields;
  private final Bson projection;

  FieldShardStore(ShardWrites writes, String field, int shards) {
    this.writes = writes;
    this.collection = writes.collection();
    this.fields = fieldNames(field, shards).toArray(new String[0]);
    this.projection = Projections.include(fields);
  }

  /** The shard fields of a counter kept in {@code field}, in shard order. */
  static List<String> fieldNames(String field, int shards) {
    List<String> names = new ArrayList<>(shards);
    for (int i = 0; i < shards; i++) {
      names.add(field + "_shard_" + i);
    }
    return names;
  }

  @Override
  public void add(String counterId, int shard, long amount, ChangeRecorder recorder) {
    Bson update = writes.recording(writes.raisingVersion(Updates.inc(fields[shard], amount)),
        recorder, amount);
    writes.once(counterId, "increment by " + amount + " of counter '" + counterId
        + "' (" + fields[shard] + ")", () -> {
      Upserts.upsert(collection, eq("_id", counterId), update);
      return null;
    });
  }

  @Override
  public boolean tryTake(String counterId, int shard, long amount, ChangeRecorder recorder) {
    Bson update = writes.recording(writes.raisingVersion(Updates.inc(fields[shard], -amount)),
        recorder, -amount);
    return writes.once(counterId, "decrement by " + amount + " of counter '" + counterId
        + "' (" + fields[shard] + ")",
        () -> Deadline.boundedWrite(collection).updateOne(and(eq("_id", counterId), gte(fields[shard], amount)),
            update).getMatchedCount() == 1);
  }

  /**
   * Takes {@code take[i]} from every shard i in one atomic update, only if each of those
   * shards still holds at least that much.
   */
  boolean tryTakeAll(String counterId, long[] take, ChangeRecorder recorder) {
    List<Bson> filters = new ArrayList<>();
    List<Bson> updates = new ArrayList<>();
    filters.add(eq("_id", counterId));
    for (int i = 0; i < take.length; i++) {
      if (take[i] > 0) {
        filters.add(gte(fields[i], take[i]));
        updates.add(Updates.inc(fields[i], -take[i]));
      }
    }
    Bson update = writes.recording(writes.raisingVersion(Updates.combine(updates)), recorder,
        -ShardPlans.sum(take));
    return writes.once(counterId, "combined decrement " + Arrays.toString(take) + " of counter '"
        + counterId + "'",
        () -> Deadline.boundedWrite(collection).updateOne(and(filters), update).getMatchedCount() == 1);
  }

  @Override
  public long[] read(String counterId) {
    Document doc = Deadline.bounded(collection).find(eq("_id", counterId)).projection(projection).first();
    long[] values = new long[fields.length];
    for (int i = 0; doc != null && i < fields.length; i++) {
      if (doc.containsKey(fields[i])) {
        values[i] = ShardValue.of(counterId, i, "_id " + doc.get("_id") + ", field " + fields[i],
            doc.get(fields[i]));
      }
    }
    return values;
  }

  @Override
  public long readOne(String counterId, int shard) {
    return read(counterId)[shard];
  }
}
