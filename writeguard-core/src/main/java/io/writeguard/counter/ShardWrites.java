package io.writeguard.counter;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.Ticker;
import io.writeguard.version.VersionPolicy;
import java.util.function.Supplier;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * What every shard store needs to write: the collection, the clock for error messages, and the
 * version policy, when the counter lives in versioned documents: then every counter write also
 * raises the version, so a {@code VersionedUpdater} that read the document before it sees a
 * conflict instead of writing back an old balance. Immutable; not API.
 */
record ShardWrites(MongoCollection<Document> collection, Ticker ticker, VersionPolicy version) {

  String collectionName() {
    return collection.getNamespace().getFullName();
  }

  /** {@code update}, plus {@code $inc} of the version when the counter's documents have one. */
  Bson raisingVersion(Bson update) {
    return version == null ? update : Updates.combine(update, version.increment());
  }

  /** Sends a write that carries no operation id once; see {@link UnrepeatableWrite}. */
  <T> T once(Object documentId, String what, Supplier<T> write) {
    return UnrepeatableWrite.send(collectionName(), documentId, what, ticker, write);
  }
}
