package io.writeguard.app.lab.transfer;

import com.mongodb.client.MongoCollection;
import io.writeguard.app.lab.BalanceSettings;
import io.writeguard.app.lab.ClientWorkload;
import io.writeguard.app.lab.ScenarioRun;
import io.writeguard.app.lab.Verification;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.Document;

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
final class TransferRun implements ScenarioRun<TransferOp> {
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
