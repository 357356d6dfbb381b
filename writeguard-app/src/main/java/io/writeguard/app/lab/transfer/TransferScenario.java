package io.writeguard.app.lab.transfer;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import io.writeguard.app.lab.BalanceScenario;
import io.writeguard.app.lab.LabStrategy;
import io.writeguard.app.lab.ScenarioEntry;
import io.writeguard.app.lab.ScenarioRun;
import io.writeguard.app.lab.ScenarioSettings;
import io.writeguard.tx.TransactionRunner;
import io.writeguard.tx.TransactionsUnsupportedException;
import java.util.List;
import java.util.Optional;
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
public final class TransferScenario implements BalanceScenario<TransferOp> {
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
}
