package io.writeguard.app.lab.counter;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gte;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import com.mongodb.client.result.UpdateResult;
import io.writeguard.app.lab.api.BalanceSettings;
import io.writeguard.app.lab.api.Strategy;
import io.writeguard.app.lab.api.Strategy.LabOperationException;
import io.writeguard.app.lab.api.Strategy.StrategyContext;
import io.writeguard.app.lab.counter.CounterRun.CounterTotals;
import io.writeguard.app.lab.counter.CounterScenario.CounterOp;
import io.writeguard.counter.CounterLayout;
import io.writeguard.counter.DecrementResult;
import io.writeguard.counter.InsufficientBalanceException;
import io.writeguard.counter.ShardedCounter;
import io.writeguard.lock.LocalLockService;
import io.writeguard.update.Mutation;
import io.writeguard.update.RetryPolicy;
import io.writeguard.update.VersionedUpdater;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.bson.Document;

/**
 * The {@code counter} strategies, each a {@link CounterStore}: it applies increments and
 * decrements and lays out a balance's starting documents the way it stores them (one
 * document, shard fields, shard documents). Registered in
 * {@link CounterScenario#entry()}.
 */
public final class CounterStrategies {
  private CounterStrategies() {}

  /**
   * A counter strategy: applies increments and decrements, and lays out the balances' starting
   * documents the way it stores them (one document, shard fields, shard documents). Thread-safe
   * like every {@link Strategy}.
   */
  public interface CounterStore extends Strategy<CounterOp> {

    /**
     * Creates the balances {@code counterIds}, each holding {@code balances.initialBalance()},
     * using {@code balances.shards()} shards where the layout has shards. Called once, before
     * any client thread starts (so whatever it sets up is visible to the clients).
     */
    void open(List<String> counterIds, BalanceSettings balances);
  }

  /**
   * The single-document balance used by {@code naive}, {@code atomic} and {@code optimistic}:
   * {@code {_id: "g0-c0", balance: 120, version: 7, ledger: [{op: 5, d: -3}, ...]}} (int64
   * values). Stateless.
   */
  static final class SingleDocument {
    private SingleDocument() {}

    static void open(MongoCollection<Document> collection, List<String> counterIds, long balance) {
      collection.insertMany(counterIds.stream()
          .map(id -> new Document("_id", id).append(CounterTotals.FIELD, balance)
              .append("version", 0L).append(CounterOp.LEDGER, List.of()))
          .toList());
    }

    /** The balance field of {@code doc} as a long. */
    static long balance(Document doc) {
      Object v = doc.get(CounterTotals.FIELD);
      if (!(v instanceof Number n)) {
        throw new IllegalStateException("balance " + doc.get("_id") + " has no numeric '"
            + CounterTotals.FIELD + "' field, was " + v);
      }
      return n.longValue();
    }
  }

  /**
   * Thrown inside a read-modify-write when the balance read cannot cover the decrement, to end
   * the update without writing; the strategy catches it and marks the operation refused. No
   * stack trace: it is an answer, not a fault.
   */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused() {
      super("insufficient balance", null, false, false);
    }
  }

  /**
   * The seed's balance update without protection: find the document, check and change the
   * balance in Java, {@code replaceOne} it. Two clients that read the same balance both write
   * their own result, and the later one erases the other's change. Never negative (each write
   * is computed from a balance that covered it), but it loses acknowledged operations. Here to
   * be measured, never used. Thread-safe (no state).
   */
  static final class NaiveCounter implements CounterStore {
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

  /**
   * The baseline: one document, one {@code $inc} per operation. A decrement carries its
   * condition in the filter, {@code updateOne({_id, balance: {$gte: a}}, {$inc: {balance: -a}})},
   * so the server checks and takes in one atomic write and the balance can never go below
   * zero; matching nothing means the balance was short (the document always exists in the lab),
   * and the decrement is refused. The operation's ledger entry is pushed in the same write. No
   * read, no retry. Thread-safe (no state).
   */
  static final class AtomicCounter implements CounterStore {
    private final StrategyContext context;

    AtomicCounter(StrategyContext context) {
      this.context = context;
    }

    @Override
    public void open(List<String> counterIds, BalanceSettings balances) {
      SingleDocument.open(context.collection(), counterIds, balances.initialBalance());
    }

    @Override
    public void apply(CounterOp op) {
      long start = context.ticker().nanoTime();
      context.listener().onAttempt(context.scope(), op.counterId(), 1);
      if (op.isDecrement()) {
        UpdateResult r = context.collection().updateOne(
            and(eq("_id", op.counterId()), gte(CounterTotals.FIELD, op.magnitude())),
            Updates.combine(Updates.inc(CounterTotals.FIELD, op.amount()),
                op.recordChange(op.amount())));
        if (r.getMatchedCount() == 0) {
          op.refuse();
        }
      } else {
        UpdateResult r = context.collection().updateOne(eq("_id", op.counterId()),
            Updates.combine(Updates.inc(CounterTotals.FIELD, op.amount()),
                op.recordChange(op.amount())));
        if (r.getMatchedCount() != 1) {
          throw new LabOperationException("$inc on balance " + op.counterId() + " matched "
              + r.getMatchedCount() + " documents");
        }
      }
      context.listener().onSuccess(context.scope(), op.counterId(), 1,
          Duration.ofNanos(context.ticker().nanoTime() - start));
    }
  }

  /**
   * The balance as a versioned read-change-write ({@link VersionedUpdater}): read
   * {@code {balance, version}}, compute the new balance in Java, {@code $set} it filtered on the
   * version read (with {@code $inc: {version: 1}} and the operation's ledger entry); a miss is a conflict, retried from a fresh
   * read with full-jitter backoff. A decrement the balance read cannot cover ends the update
   * without writing and is refused; that decision is taken on the last, fresh read.
   *
   * <p>The retry policy is the one the {@code readinfo} lab chose by measurement (30 attempts,
   * 10 s, backoff 5 ms doubling to 500 ms; docs/lab.md). Thread-safe: the updater is.
   */
  static final class OptimisticCounter implements CounterStore {
    static final RetryPolicy POLICY = RetryPolicy.builder()
        .maxAttempts(30)
        .deadline(Duration.ofSeconds(10))
        .backoff(Duration.ofMillis(5), Duration.ofMillis(500))
        .build();

    private final StrategyContext context;
    private final VersionedUpdater updater;

    OptimisticCounter(StrategyContext context) {
      this.context = context;
      this.updater = VersionedUpdater.builder(context.collection())
          .retryPolicy(POLICY)
          .listener(context.listener())
          .strategyName(context.scope().strategy())
          .ticker(context.ticker())
          .groupCommit(context.groupCommit())
          .build();
    }

    @Override
    public void open(List<String> counterIds, BalanceSettings balances) {
      SingleDocument.open(context.collection(), counterIds, balances.initialBalance());
    }

    @Override
    public void apply(CounterOp op) {
      try {
        updater.updateOne(op.counterId(), current -> {
          long balance = SingleDocument.balance(current);
          if (op.isDecrement() && balance < op.magnitude()) {
            throw new Refused(); // pure: ends this update, nothing written
          }
          return Mutation.update(Updates.combine(
              Updates.set(CounterTotals.FIELD, balance + op.amount()),
              op.recordChange(op.amount())));
        });
      } catch (Refused e) {
        op.refuse();
      }
    }
  }

  /**
   * The balance as a {@link ShardedCounter} (core library) in one of its layouts: an increment
   * is one {@code $inc} on a random shard; a decrement takes from one random shard with a
   * conditional {@code $inc}, and combines shards when that one holds too little (fields: one
   * atomic conditional update; documents: a drain under an in-process lock). The counter's own
   * {@link InsufficientBalanceException} is a refusal.
   *
   * <p>Reported to the lab: one attempt per operation, and a decrement that had to combine
   * counts as a retry (its first try missed). A balance opens with its whole starting amount on
   * one shard, as a counter that has just been credited would.
   *
   * <p>Every write the counter makes for an operation carries the operation's ledger entry
   * ({@link io.writeguard.counter.ChangeRecorder}): an increment's {@code +a}, a drain's take
   * from each shard and, for a refused decrement, each give-back.
   *
   * <p>Thread-safe: the counter is built in the first {@link #open}, before the client threads
   * start (thread start publishes it), and never changed after; later calls (new generations)
   * only increment.
   */
  static final class ShardedCounterStrategy implements CounterStore {
    private final StrategyContext context;
    private final CounterLayout layout;
    private ShardedCounter counter;

    ShardedCounterStrategy(StrategyContext context, CounterLayout layout) {
      this.context = context;
      this.layout = layout;
    }

    @Override
    public void open(List<String> counterIds, BalanceSettings balances) {
      if (counter == null) { // the first call, before the client threads start
        counter = build(balances);
      }
      if (balances.initialBalance() > 0) {
        counterIds.forEach(id -> counter.increment(id, balances.initialBalance()));
      }
    }

    private ShardedCounter build(BalanceSettings balances) {
      return ShardedCounter.builder(context.collection())
          .layout(layout)
          .shards(balances.shards())
          .field(CounterTotals.FIELD)
          .lockService(LocalLockService.builder().listener(context.listener()).build())
          .lockWaitTimeout(Duration.ofSeconds(10))
          .build();
    }

    @Override
    public void apply(CounterOp op) {
      if (counter == null) {
        throw new IllegalStateException("open() was not called before apply()");
      }
      long start = context.ticker().nanoTime();
      context.listener().onAttempt(context.scope(), op.counterId(), 1);
      int attempts = 1;
      if (op.isDecrement()) {
        try {
          DecrementResult r = counter.decrement(op.counterId(), op.magnitude(), op::recordChange);
          if (r.combined()) {
            context.listener().onRetry(context.scope(), op.counterId(), 1, Duration.ZERO);
            context.listener().onAttempt(context.scope(), op.counterId(), 2);
            attempts = 2;
          }
        } catch (InsufficientBalanceException e) {
          op.refuse();
        }
      } else {
        counter.increment(op.counterId(), op.magnitude(), op::recordChange);
      }
      context.listener().onSuccess(context.scope(), op.counterId(), attempts,
          Duration.ofNanos(context.ticker().nanoTime() - start));
    }
  }
}
