package io.writeguard.app.readinfo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.ne;
import static com.mongodb.client.model.Filters.type;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.Ticker;
import io.writeguard.atomic.AtomicUpdates;
import io.writeguard.internal.Deadline;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.version.VersionPolicy;
import java.time.Duration;
import java.util.OptionalLong;
import org.bson.BsonType;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The mark as one atomic update, no read, no lock, no retry:
 *
 * <pre>{@code
 * updateOne({_id: id, "infos.k.s.i": {$type: "object"}, "infos.k.s.i.read": {$ne: user}},
 *           {$addToSet: {"infos.k.s.i.read": user}, $inc: {version: 1}})
 * }</pre>
 *
 * <p>The item filter keeps a mark from ever creating an item ({@code $addToSet} alone would
 * pad a short list with nulls or create missing keys). The {@code $ne} filter makes the
 * version rise only when the user was really added, and the version rise keeps optimistic
 * writers of the same document honest: one that read the list before this mark finds the
 * version moved instead of writing back a list without it. When nothing matched, one small
 * read tells a repeated click from a missing document or item. Thread-safe (no state).
 */
final class AtomicMarkRead implements MarkReadStrategy {
  static final String NAME = "atomic";

  private final MongoCollection<Document> collection;
  private final String collectionName;
  private final WriteGuardListener listener;
  private final OperationScope scope;
  private final Ticker ticker;
  private final Bson increment = VersionPolicy.defaults().increment();

  AtomicMarkRead(MarkReadDeps deps) {
    this.collection = deps.collection();
    this.collectionName = Marks.collectionName(collection);
    this.listener = deps.listener();
    this.scope = new OperationScope(collectionName, NAME);
    this.ticker = deps.ticker();
  }

  @Override
  public MarkResult mark(ReadItem item, String userId) {
    Marks.checkUser(userId);
    long start = ticker.nanoTime();
    listener.onAttempt(scope, item.docId(), 1);
    Bson filter = and(eq("_id", item.docId()),
        type(item.itemPath().toString(), BsonType.DOCUMENT),
        ne(item.readPath().toString(), userId));
    Bson update = Updates.combine(AtomicUpdates.addToSet(item.readPath(), userId), increment);
    boolean added = Deadline.boundedWrite(collection).updateOne(filter, update).getMatchedCount() == 1;
    if (!added) {
      try {
        if (!Marks.alreadyMarked(collection, item, userId)) {
          // The item appeared or lost the user between the update and the read: never in a
          // store where marks are only added; refuse rather than guess.
          throw new MarkReadException(item, "mark of " + item.readPath() + " in _id="
              + item.docId() + " matched nothing, yet the user is not there; nothing was written");
        }
      } catch (MarkReadException e) {
        listener.onFailure(scope, item.docId(), e);
        throw e;
      }
    }
    listener.onSuccess(scope, item.docId(), 1, Duration.ofNanos(ticker.nanoTime() - start));
    return new MarkResult(NAME, added, OptionalLong.empty(), 1, 0);
  }

  @Override
  public String name() {
    return NAME;
  }
}
