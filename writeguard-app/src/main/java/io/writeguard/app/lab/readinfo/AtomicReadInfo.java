package io.writeguard.app.lab.readinfo;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.result.UpdateResult;
import io.writeguard.app.lab.LabOperationException;
import io.writeguard.app.lab.Strategy;
import io.writeguard.app.lab.StrategyContext;
import io.writeguard.path.AtomicUpdates;
import java.time.Duration;

/**
 * The mark as one atomic operator: {@code $addToSet} on {@code infos.<key>.<skey>.<i>.read}.
 * The server applies it to the current document, so there is nothing to lose and nothing to
 * retry, and a repeated click changes nothing. Thread-safe (it keeps no state).
 */
final class AtomicReadInfo implements Strategy<Mark> {
  private final StrategyContext context;

  AtomicReadInfo(StrategyContext context) {
    this.context = context;
  }

  @Override
  public void apply(Mark mark) {
    long start = context.ticker().nanoTime();
    context.listener().onAttempt(context.scope(), mark.docId(), 1);
    UpdateResult result = context.collection().updateOne(
        eq("_id", mark.docId()), AtomicUpdates.addToSet(ReadInfoDocs.readPath(mark), mark.user()));
    if (result.getMatchedCount() != 1) {
      throw new LabOperationException("$addToSet on document " + mark.docId() + " matched "
          + result.getMatchedCount() + " documents");
    }
    context.listener().onSuccess(context.scope(), mark.docId(), 1,
        Duration.ofNanos(context.ticker().nanoTime() - start));
  }
}
