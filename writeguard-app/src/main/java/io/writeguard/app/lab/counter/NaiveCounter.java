package io.writeguard.app.lab.counter;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.result.UpdateResult;
import io.writeguard.app.lab.BalanceSettings;
import io.writeguard.app.lab.LabOperationException;
import io.writeguard.app.lab.StrategyContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.bson.Document;

/**
 * The seed's balance update without protection: find the document, check and change the
 * balance in Java, {@code replaceOne} it. Two clients that read the same balance both write
 * their own result, and the later one erases the other's change. Never negative (each write
 * is computed from a balance that covered it), but it loses acknowledged operations. Here to
 * be measured, never used. Thread-safe (no state).
 */
final class NaiveCounter implements CounterStore {
  private final StrategyContext context;
  private final Runnable betweenReadAndWrite;

  NaiveCounter(StrategyContext context) {
    this(context, () -> {});
  }

  /** {@code betweenReadAndWrite} lets a test hold clients between find and replace. */
  NaiveCounter(StrategyContext context, Runnable betweenReadAndWrite) {
    this.context = context;
    this.betweenReadAndWrite = Objects.requireNonNull(betweenReadAndWrite);
  }

  @Override
  public void open(List<String> counterIds, BalanceSettings balances) {
    SingleDocument.open(context.collection(), counterIds, balances.initialBalance());
  }

  @Override
  public void apply(CounterOp op) {
    long start = context.ticker().nanoTime();
    context.listener().onAttempt(context.scope(), op.counterId(), 1);
    Document doc = context.collection().find(eq("_id", op.counterId())).first();
    if (doc == null) {
      throw new LabOperationException("balance " + op.counterId() + " not found");
    }
    long balance = SingleDocument.balance(doc);
    betweenReadAndWrite.run();
    if (op.isDecrement() && balance < op.magnitude()) {
      op.refuse();
    } else {
      doc.put(CounterTotals.FIELD, balance + op.amount());
      List<Object> ledger = new ArrayList<>(doc.getList(CounterOp.LEDGER, Object.class, List.of()));
      ledger.add(op.ledgerEntry(op.amount()));
      doc.put(CounterOp.LEDGER, ledger); // recorded in the replaced document, lost with it
      UpdateResult r = context.collection().replaceOne(eq("_id", op.counterId()), doc);
      if (r.getMatchedCount() != 1) {
        throw new LabOperationException("replace of balance " + op.counterId() + " matched "
            + r.getMatchedCount() + " documents");
      }
    }
    context.listener().onSuccess(context.scope(), op.counterId(), 1,
        Duration.ofNanos(context.ticker().nanoTime() - start));
  }
}
