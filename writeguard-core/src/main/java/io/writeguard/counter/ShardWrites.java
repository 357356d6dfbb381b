package io.writeguard.counter;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.Ticker;
import io.writeguard.internal.Checks;
import io.writeguard.version.VersionPolicy;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * What every shard store needs to write: the collection, the clock for error messages, and the
 * version policy, when the counter lives in versioned documents: then every counter write also
 * raises the version, so a {@code VersionedUpdater} that read the document before it sees a
 * conflict instead of writing back an old balance. Immutable; not API.
 */
record ShardWrites(MongoCollection<Document> collection, Ticker ticker, VersionPolicy version,
    Set<String> counterFields) {

  /**
   * @param counterFields every field the counter keeps its balance in (all the shard fields of
   *     the FIELDS layout, not only the one a write touches): a recorder may write none of them
   */
  ShardWrites {
    counterFields = Set.copyOf(counterFields);
  }

  String collectionName() {
    return collection.getNamespace().getFullName();
  }

  /** {@code update}, plus {@code $inc} of the version when the counter's documents have one. */
  Bson raisingVersion(Bson update) {
    return version == null ? update : Updates.combine(update, version.increment());
  }

  /**
   * {@code update} (already raising the version), plus what {@code recorder} adds for a write
   * that changes the balance by {@code change}. The recorder's update is refused, before
   * anything is sent, when it is not an operator update or writes a field {@code update}
   * writes, or one of the counter's own fields (any shard's balance, the version, the
   * bookkeeping fields).
   */
  Bson recording(Bson update, ChangeRecorder recorder, long change) {
    Bson extra = recorder.update(change);
    if (extra == null) {
      return update;
    }
    Set<String> taken = new HashSet<>(Set.of("_id", "counter", "shard",
        DocumentShardStore.OPS_FIELD));
    taken.addAll(counterFields);
    if (version != null) {
      taken.add(topField(version.field()));
    }
    for (Map.Entry<String, BsonValue> op : render(update).entrySet()) {
      op.getValue().asDocument().keySet().forEach(path -> taken.add(topField(path)));
    }
    for (Map.Entry<String, BsonValue> op : render(extra).entrySet()) {
      if (!op.getKey().startsWith("$") || !op.getValue().isDocument()) {
        throw new IllegalArgumentException("a ChangeRecorder's update must use operators ($push,"
            + " $set, ...), not a replacement document; found field " + Checks.quote(op.getKey()));
      }
      for (String path : op.getValue().asDocument().keySet()) {
        if (taken.contains(topField(path))) {
          throw new IllegalArgumentException("a ChangeRecorder's update must not write a field"
              + " the counter writes, but " + op.getKey() + " writes " + Checks.quote(path));
        }
      }
    }
    return Updates.combine(update, extra);
  }

  private BsonDocument render(Bson update) {
    return update.toBsonDocument(BsonDocument.class, collection.getCodecRegistry());
  }

  private static String topField(String path) {
    int dot = path.indexOf('.');
    return dot < 0 ? path : path.substring(0, dot);
  }

  /** Sends a write that carries no operation id once; see {@link UnrepeatableWrite}. */
  <T> T once(Object documentId, String what, Supplier<T> write) {
    return UnrepeatableWrite.send(collectionName(), documentId, what, ticker, write);
  }
}
