package io.writeguard.app.lab.transfer;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gte;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import com.mongodb.client.result.UpdateResult;
import io.writeguard.app.lab.LabOperationException;
import io.writeguard.app.lab.Strategy;
import io.writeguard.app.lab.StrategyContext;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.tx.TransactionRunner;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;

/**
 * A transfer as one transaction ({@link TransactionRunner}): take the amount from the source
 * with a conditional {@code $inc} (filter {@code balance >= amount}; no match means an
 * overdraft, and the transaction is aborted and the transfer refused), add it to the
 * destination, commit. A write conflict aborts with {@code TransientTransactionError} and the
 * runner runs the body again after a backoff; the lab counts those as conflicts and retries.
 *
 * <p>Needs a replica set or sharded cluster; the scenario refuses to run elsewhere before any
 * strategy is created. Thread-safe: the runner is, and each call keeps its state on its stack.
 */
final class TransactionTransfer implements Strategy<TransferOp> {
  private static final String KEY = "transfer";
  private final StrategyContext context;
  private final MongoCollection<Document> accounts;
  private final TransactionRunner transactions;

  TransactionTransfer(StrategyContext context) {
    if (context.client() == null) {
      throw new IllegalStateException("the transfer strategy needs the MongoClient in its"
          + " StrategyContext to open sessions");
    }
    this.context = context;
    this.accounts = context.collection();
    WriteGuardListener counting = new WriteGuardListener() {
      @Override
      public void onTransactionRetry(String errorLabel, int attempt) {
        if (TransactionRunner.TRANSIENT_TRANSACTION_ERROR.equals(errorLabel)) {
          context.listener().onConflict(context.scope(), KEY, attempt);
        }
        context.listener().onRetry(context.scope(), KEY, attempt, Duration.ZERO);
      }
    };
    this.transactions = TransactionRunner.builder(context.client())
        .listener(counting)
        .ticker(context.ticker())
        .build();
  }

  @Override
  public void apply(TransferOp op) {
    long start = context.ticker().nanoTime();
    AtomicInteger attempts = new AtomicInteger();
    try {
      transactions.run(session -> {
        // Counting attempts is not a side effect on the data: every run of the body is one.
        context.listener().onAttempt(context.scope(), KEY, attempts.incrementAndGet());
        UpdateResult debit = accounts.updateOne(session,
            and(eq("_id", op.fromId()), gte("balance", op.amount())),
            Updates.inc("balance", -op.amount()));
        if (debit.getMatchedCount() == 0) {
          throw new Overdraft();
        }
        UpdateResult credit = accounts.updateOne(session, eq("_id", op.toId()),
            Updates.inc("balance", op.amount()));
        if (credit.getMatchedCount() != 1) {
          throw new LabOperationException("account " + op.toId() + " not found");
        }
        return null;
      });
    } catch (Overdraft e) {
      op.refuse();
    }
    context.listener().onSuccess(context.scope(), KEY, attempts.get(),
        Duration.ofNanos(context.ticker().nanoTime() - start));
  }
}
