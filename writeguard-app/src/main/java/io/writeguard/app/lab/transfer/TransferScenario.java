package io.writeguard.app.lab.transfer;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gte;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import com.mongodb.client.result.UpdateResult;
import io.writeguard.app.lab.api.BalanceSettings;
import io.writeguard.app.lab.api.LabStrategy;
import io.writeguard.app.lab.api.Scenario.BalanceScenario;
import io.writeguard.app.lab.api.Scenario.ClientWorkload;
import io.writeguard.app.lab.api.Scenario.ScenarioRun;
import io.writeguard.app.lab.api.Scenario.ScenarioSettings;
import io.writeguard.app.lab.api.Scenario.Verification;
import io.writeguard.app.lab.api.ScenarioEntry;
import io.writeguard.app.lab.api.Strategy;
import io.writeguard.app.lab.api.Strategy.LabOperationException;
import io.writeguard.app.lab.api.Strategy.StrategyContext;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.tx.TransactionRunner;
import io.writeguard.tx.TransactionsUnsupportedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;

/**
 * Money moving between accounts: clients transfer random amounts (1 to {@code --max-amount})
 * between random pairs of {@code --docs} accounts, each in a transaction, refusing overdrafts.
 * The invariant spans two documents, which no single-document write can keep: the sum of all
 * balances must not change and no account may go below zero.
 *
 * <p>Transactions need a replica set or a sharded cluster. On a standalone server (the
 * embedded one included) {@link #unsupportedReason} says so and the lab measures nothing: a
 * "transfer" done as two independent writes would be a different scenario, and faking the
 * transaction would report numbers that mean nothing. Stateless and thread-safe.
 */
public final class TransferScenario implements BalanceScenario<TransferScenario.TransferOp> {
  public static final String NAME = "transfer";
  static final int MAX_ACCOUNTS = 1_000_000;

  /** The scenario with its strategies. */
  public static ScenarioEntry<TransferOp> entry() {
    return new ScenarioEntry<>(new TransferScenario(), List.of(
        new LabStrategy<>("transaction", false,
            "debit (if covered) and credit in one transaction; retried on TransientTransactionError",
            TransactionTransfer::new)));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "clients move amounts between accounts in transactions; the sum must not change";
  }

  @Override
  public int defaultDocs() {
    return 8;
  }

  @Override
  public int minDocs() {
    return 2;
  }

  /** Asks the server whether it can run transactions (the deployment, from its hello reply). */
  @Override
  public Optional<String> unsupportedReason(MongoClient client) {
    TransactionRunner probe = TransactionRunner.builder(client).build();
    if (probe.transactionsSupported()) {
      return Optional.empty();
    }
    try {
      probe.run(session -> null); // refused before anything runs; gives the reason in words
      return Optional.empty();
    } catch (TransactionsUnsupportedException e) {
      return Optional.of(e.getMessage());
    }
  }

  @Override
  public ScenarioRun<TransferOp> start(MongoCollection<Document> collection,
      ScenarioSettings settings) {
    if (settings.docs() < minDocs() || settings.docs() > MAX_ACCOUNTS) {
      throw new IllegalArgumentException("docs (accounts) must be between " + minDocs()
          + " and " + MAX_ACCOUNTS + ", was " + settings.docs());
    }
    return new TransferRun(collection, settings.docs(), settings.balances());
  }

  /**
   * Move {@code amount} from account {@code from} to account {@code to} (two different
   * accounts). A transfer the source cannot cover is <em>refused</em>: the strategy calls
   * {@link #refuse()} and returns normally (a correct answer, not an error; nothing moves).
   * Created by one client for one call and used on that client's thread only; not thread-safe.
   */
  public static final class TransferOp {
    private final int from;
    private final int to;
    private final long amount;
    private boolean refused;

    TransferOp(int from, int to, long amount) {
      if (from == to) {
        throw new IllegalArgumentException("a transfer needs two accounts, was " + from + " twice");
      }
      if (amount < 1) {
        throw new IllegalArgumentException("amount must be >= 1, was " + amount);
      }
      this.from = from;
      this.to = to;
      this.amount = amount;
    }

    /** The source account's document id. */
    public String fromId() {
      return TransferRun.accountId(from);
    }

    /** The destination account's document id. */
    public String toId() {
      return TransferRun.accountId(to);
    }

    int from() {
      return from;
    }

    int to() {
      return to;
    }

    public long amount() {
      return amount;
    }

    /** Called by a strategy when the source account could not cover the amount. */
    public void refuse() {
      refused = true;
    }

    public boolean refused() {
      return refused;
    }

    @Override
    public String toString() {
      return "transfer " + amount + " from " + fromId() + " to " + toId();
    }
  }

  /**
   * One client's seeded stream of transfers between random accounts, and its ledger of what was
   * acknowledged: each account's net change, the transfers done and refused. Used by one client
   * thread; not thread-safe.
   */
  static final class TransferClient implements ClientWorkload<TransferOp> {
    private final int accounts;
    private final long maxAmount;
    private final SplittableRandom random;
    private final long[] change;
    private long transfers;
    private long refused;
    private long moved;

    TransferClient(int accounts, long maxAmount, long seed) {
      this.accounts = accounts;
      this.maxAmount = maxAmount;
      this.random = new SplittableRandom(seed);
      this.change = new long[accounts];
    }

    @Override
    public TransferOp next() {
      int from = random.nextInt(accounts);
      int to = random.nextInt(accounts - 1);
      if (to >= from) {
        to++; // uniform over the other accounts
      }
      return new TransferOp(from, to, 1 + random.nextLong(maxAmount));
    }

    @Override
    public void acknowledged(TransferOp op) {
      if (op.refused()) {
        refused++;
        return;
      }
      change[op.from()] -= op.amount();
      change[op.to()] += op.amount();
      transfers++;
      moved += op.amount();
    }

    long change(int account) {
      return change[account];
    }

    long transfers() {
      return transfers;
    }

    long refused() {
      return refused;
    }

    long moved() {
      return moved;
    }
  }

  /**
   * One strategy's run of {@code transfer}: {@code --docs} accounts
   * {@code {_id: "a3", balance: 100}}, each opened with {@code --balance}.
   *
   * <p>Counting: every account must end at {@code initial + acknowledged credits -
   * acknowledged debits}; the loss is the sum over accounts of {@code |final - expected|}, in
   * units of balance (a transfer moves its amount twice: out of one account, into another). The
   * sum of all balances must stay {@code accounts x initial}, and no account may be negative (a
   * negative one is counted in {@code violations}). Thread-safe for the runner's use.
   */
  static final class TransferRun implements ScenarioRun<TransferOp> {
    private final MongoCollection<Document> collection;
    private final int accounts;
    private final BalanceSettings balances;

    TransferRun(MongoCollection<Document> collection, int accounts, BalanceSettings balances) {
      this.collection = collection;
      this.accounts = accounts;
      this.balances = balances;
      List<Document> docs = new ArrayList<>(accounts);
      for (int i = 0; i < accounts; i++) {
        docs.add(new Document("_id", accountId(i)).append("balance", balances.initialBalance()));
      }
      collection.insertMany(docs);
    }

    static String accountId(int account) {
      return "a" + account;
    }

    @Override
    public ClientWorkload<TransferOp> client(int index, long seed) {
      return new TransferClient(accounts, balances.maxAmount(), seed);
    }

    @Override
    public Verification verify(List<? extends ClientWorkload<TransferOp>> clients) {
      Map<Object, Long> actual = new HashMap<>();
      for (Document doc : collection.find()) {
        actual.put(doc.get("_id"), doc.get("balance") instanceof Number n ? n.longValue() : 0L);
      }
      long lost = 0;
      long finalTotal = 0;
      long mismatches = 0;
      long negative = 0;
      long minBalance = Long.MAX_VALUE;
      for (int a = 0; a < accounts; a++) {
        long expected = balances.initialBalance();
        for (ClientWorkload<TransferOp> w : clients) {
          expected += ((TransferClient) w).change(a);
        }
        long value = actual.getOrDefault(accountId(a), 0L);
        lost += Math.abs(value - expected);
        mismatches += value == expected ? 0 : 1;
        negative += value < 0 ? 1 : 0;
        minBalance = Math.min(minBalance, value);
        finalTotal += value;
      }
      long transfers = 0;
      long refused = 0;
      long moved = 0;
      for (ClientWorkload<TransferOp> w : clients) {
        TransferClient c = (TransferClient) w;
        transfers += c.transfers();
        refused += c.refused();
        moved += c.moved();
      }
      Map<String, Object> figures = new LinkedHashMap<>();
      figures.put("final_total", finalTotal);
      figures.put("expected_total", balances.initialBalance() * accounts);
      figures.put("min_balance", minBalance);
      figures.put("transfers", transfers);
      figures.put("refused_transfers", refused);
      figures.put("account_mismatches", mismatches);
      figures.put(Verification.VIOLATIONS, negative);
      long expectedUnits = 2 * moved;
      return new Verification(expectedUnits, expectedUnits - Math.min(lost, expectedUnits), figures);
    }
  }

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
  static final class TransactionTransfer implements Strategy<TransferOp> {
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

  /**
   * Thrown inside a transaction's body when the source account cannot cover the transfer, to
   * abort it; the strategy catches it and marks the transfer refused. No stack trace: it is an
   * answer, not a fault.
   */
  static final class Overdraft extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Overdraft() {
      super("insufficient balance", null, false, false);
    }
  }
}
