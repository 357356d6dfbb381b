package io.writeguard.counter;

import io.writeguard.internal.Deadline;
import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gte;
import static com.mongodb.client.model.Filters.in;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.idempotency.OpResult;
import io.writeguard.idempotency.OperationIdGuard;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * Shards as documents: {@code {_id: "<counter>#<i>", counter: "<counter>", shard: i,
 * balance: 7}} (int64 value; a missing document or field counts as 0, any other value is a
 * {@link CorruptShardException}). The {@code _id} is unambiguous
 * because the shard index after the last {@code #} never contains one.
 *
 * <p>{@link #add} and {@link #tryTake} carry no operation id and are sent once (a lost reply
 * is a {@link io.writeguard.update.WriteOutcomeUnknownException}). The drain's writes,
 * {@link #takeOnce} and {@link #giveBackOnce}, carry one, checked in the filter by an
 * {@link OperationIdGuard} ({@code _ops} on the shard document), so they may be re-sent after a
 * lost reply and still apply once. Thread-safe.
 */
final class DocumentShardStore implements ShardStore {
  /** The shard documents' list of applied drain operations. */
  static final String OPS_FIELD = "_ops";
  // A drain writes at most 2 passes x (1 take + 1 give-back) per shard; other drains of the
  // same counter wait for its lock, so 64 ids outlive any take until its give-back.
  private static final OperationIdGuard GUARD =
      OperationIdGuard.builder().field(OPS_FIELD).keep(64).build();

  private final ShardWrites writes;
  private final MongoCollection<Document> collection;
  private final String field;
  private final int shards;

  DocumentShardStore(ShardWrites writes, String field, int shards) {
    this.writes = writes;
    this.collection = writes.collection();
    this.field = field;
    this.shards = shards;
  }

  static String shardId(String counterId, int shard) {
    return counterId + "#" + shard;
  }

  @Override
  public void add(String counterId, int shard, long amount, ChangeRecorder recorder) {
    Bson update = writes.recording(writes.raisingVersion(Updates.combine(
        Updates.inc(field, amount),
        Updates.setOnInsert("counter", counterId),
        Updates.setOnInsert("shard", shard))), recorder, amount);
    writes.once(shardId(counterId, shard), "increment by " + amount + " of counter '"
        + counterId + "'", () -> {
      Upserts.upsert(collection, eq("_id", shardId(counterId, shard)), update);
      return null;
    });
  }

  @Override
  public boolean tryTake(String counterId, int shard, long amount, ChangeRecorder recorder) {
    Bson update = writes.recording(writes.raisingVersion(Updates.inc(field, -amount)), recorder,
        -amount);
    return writes.once(shardId(counterId, shard), "decrement by " + amount + " of counter '"
        + counterId + "'",
        () -> Deadline.boundedWrite(collection).updateOne(and(eq("_id", shardId(counterId, shard)), gte(field, amount)),
            update).getMatchedCount() == 1);
  }

  /**
   * Takes {@code amount} from one shard if it holds that much, once per {@code opId}:
   * {@link OpResult#ALREADY_APPLIED} when an earlier send with this id was applied.
   */
  OpResult takeOnce(String counterId, int shard, long amount, String opId,
      ChangeRecorder recorder) {
    return GUARD.apply(collection, shardId(counterId, shard), gte(field, amount),
        writes.recording(writes.raisingVersion(Updates.inc(field, -amount)), recorder, -amount),
        opId);
  }

  /**
   * Gives back what the take {@code takeOpId} took, once per {@code opId}, and only if that take
   * was applied (its id is recorded): {@link OpResult#NOT_MATCHED} means it never was, so a
   * take whose outcome stayed unknown is returned exactly when it happened.
   */
  OpResult giveBackOnce(String counterId, int shard, long amount, String takeOpId, String opId,
      ChangeRecorder recorder) {
    return GUARD.apply(collection, shardId(counterId, shard), eq(OPS_FIELD, takeOpId),
        writes.recording(writes.raisingVersion(Updates.inc(field, amount)), recorder, amount),
        opId);
  }

  /** True when the shard records {@code opId} as applied (a read). */
  boolean recorded(String counterId, int shard, String opId) {
    return GUARD.isRecorded(collection, shardId(counterId, shard), opId);
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
    for (Document doc : Deadline.bounded(collection).find(in("_id", ids))) {
      Integer i = index.get(doc.get("_id"));
      if (i != null) {
        values[i] = value(counterId, i, doc);
      }
    }
    return values;
  }

  @Override
  public long readOne(String counterId, int shard) {
    Document doc = Deadline.bounded(collection).find(eq("_id", shardId(counterId, shard))).first();
    return doc == null ? 0L : value(counterId, shard, doc);
  }

  /** The shard's value: 0 when the field is absent, else strictly an integer. */
  private long value(String counterId, int shard, Document doc) {
    return doc.containsKey(field) ? ShardValue.of(counterId, shard, "_id \"" + doc.get("_id")
        + "\", field " + field, doc.get(field)) : 0L;
  }
}
