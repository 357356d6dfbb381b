package io.writeguard.app.readinfo;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import io.writeguard.Ticker;
import io.writeguard.monitor.OperationScope;
import io.writeguard.monitor.WriteGuardListener;
import java.time.Duration;
import java.util.OptionalLong;
import org.bson.Document;

/**
 * The seed's route without its lock: find the document, add the user in Java, replace the
 * whole document. Two requests that read the same document both write it back, and the later
 * replace erases the earlier mark. It exists to be measured, never to be used. Thread-safe (it
 * keeps no state).
 */
final class NaiveMarkRead implements MarkReadStrategy {
  static final String NAME = "naive";

  private final MongoCollection<Document> collection;
  private final String collectionName;
  private final WriteGuardListener listener;
  private final OperationScope scope;
  private final Ticker ticker;
  private final Runnable betweenReadAndWrite;

  NaiveMarkRead(MarkReadDeps deps) {
    this.collection = deps.collection();
    this.collectionName = Marks.collectionName(collection);
    this.listener = deps.listener();
    this.scope = new OperationScope(collectionName, NAME);
    this.ticker = deps.ticker();
    this.betweenReadAndWrite = deps.betweenReadAndWrite();
  }

  @Override
  public MarkResult mark(ReadItem item, String userId) {
    Marks.checkUser(userId);
    long start = ticker.nanoTime();
    listener.onAttempt(scope, item.docId(), 1);
    Document doc = collection.find(eq("_id", item.docId())).first();
    if (doc == null) {
      throw failed(new NoSuchDocumentException(collectionName, item));
    }
    betweenReadAndWrite.run();
    boolean added;
    try {
      added = ReadLists.add(doc, item, userId, collectionName);
    } catch (MarkReadException e) {
      throw failed(e);
    }
    // Like the seed's save(), it writes back even when nothing changed.
    if (collection.replaceOne(eq("_id", item.docId()), doc).getMatchedCount() != 1) {
      throw failed(new NoSuchDocumentException(collectionName, item)); // deleted meanwhile
    }
    listener.onSuccess(scope, item.docId(), 1, Duration.ofNanos(ticker.nanoTime() - start));
    return new MarkResult(NAME, added, OptionalLong.empty(), 1, 0);
  }

  private MarkReadException failed(MarkReadException e) {
    listener.onFailure(scope, e.item().docId(), e);
    return e;
  }

  @Override
  public String name() {
    return NAME;
  }
}
