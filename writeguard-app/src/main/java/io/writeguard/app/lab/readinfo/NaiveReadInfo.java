package io.writeguard.app.lab.readinfo;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.result.UpdateResult;
import io.writeguard.app.lab.LabOperationException;
import io.writeguard.app.lab.Strategy;
import io.writeguard.app.lab.StrategyContext;
import java.time.Duration;
import java.util.Objects;
import org.bson.Document;

/**
 * The seed's route without its lock: find the document, add the user in Java, replace the
 * whole document. Two clients that read the same version both write it back, and the later
 * replace erases the earlier one's mark. It is here to be measured, never to be used.
 * Thread-safe (it keeps no state).
 */
final class NaiveReadInfo implements Strategy<Mark> {
  private final StrategyContext context;
  private final MongoCollection<Document> collection;
  private final Runnable betweenReadAndWrite;

  NaiveReadInfo(StrategyContext context) {
    this(context, () -> {});
  }

  /** {@code betweenReadAndWrite} lets a test hold clients between find and replace. */
  NaiveReadInfo(StrategyContext context, Runnable betweenReadAndWrite) {
    this.context = context;
    this.collection = context.collection();
    this.betweenReadAndWrite = Objects.requireNonNull(betweenReadAndWrite);
  }

  @Override
  public void apply(Mark mark) {
    long start = context.ticker().nanoTime();
    context.listener().onAttempt(context.scope(), mark.docId(), 1);
    Document doc = collection.find(eq("_id", mark.docId())).first();
    if (doc == null) {
      throw new LabOperationException("document " + mark.docId() + " not found");
    }
    betweenReadAndWrite.run();
    ReadInfoDocs.markRead(doc, mark);
    UpdateResult result = collection.replaceOne(eq("_id", mark.docId()), doc);
    if (result.getMatchedCount() != 1) {
      throw new LabOperationException("replace of document " + mark.docId() + " matched "
          + result.getMatchedCount() + " documents");
    }
    context.listener().onSuccess(context.scope(), mark.docId(), 1,
        Duration.ofNanos(context.ticker().nanoTime() - start));
  }
}
