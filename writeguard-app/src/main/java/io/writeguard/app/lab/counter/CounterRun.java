package io.writeguard.app.lab.counter;

import com.mongodb.client.MongoCollection;
import io.writeguard.app.lab.BalanceSettings;
import io.writeguard.app.lab.ClientWorkload;
import io.writeguard.app.lab.ScenarioRun;
import io.writeguard.app.lab.Strategy;
import io.writeguard.app.lab.Verification;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.bson.Document;

/**
 * One strategy's run of {@code counter}: opens the hot balances in the strategy's layout,
 * keeps a reader sampling their totals while the clients write, and at the end compares each
 * balance with what was acknowledged.
 *
 * <p>Counting, per balance: {@code expected = initial + acknowledged increments -
 * acknowledged decrements} (refused decrements change nothing), {@code final} is read from
 * the documents by {@link CounterTotals} (independent of the strategy), and the loss is
 * {@code |final - expected|} in units of balance. Increments and decrements that were both
 * lost can cancel out, so for a strategy that loses updates this is a lower bound; for one
 * that does not, it is exactly 0. Thread-safe for the runner's use (see {@link ScenarioRun}).
 */
final class CounterRun implements ScenarioRun<CounterOp> {
  private final MongoCollection<Document> collection;
  private final List<String> counterIds;
  private final BalanceSettings balances;
  private final long initialBalance;
  private final TotalReader reader;

  CounterRun(MongoCollection<Document> collection, int counters, BalanceSettings balances) {
    this.collection = collection;
    this.counterIds = IntStream.range(0, counters).mapToObj(i -> "c" + i).toList();
    this.balances = balances;
    this.initialBalance = balances.initialBalance();
    this.reader = new TotalReader(collection, counterIds);
  }

  /** Opens every balance in the strategy's layout, then starts the reader. */
  @Override
  public void prepare(Strategy<CounterOp> strategy) {
    if (!(strategy instanceof CounterStore store)) {
      throw new IllegalArgumentException("a counter strategy must implement CounterStore, was "
          + strategy.getClass().getName());
    }
    store.open(counterIds, balances);
    reader.start();
  }

  @Override
  public ClientWorkload<CounterOp> client(int index, long seed) {
    return new CounterClient(counterIds, balances.maxAmount(), seed);
  }

  @Override
  public Verification verify(List<? extends ClientWorkload<CounterOp>> clients) {
    reader.stop();
    long moved = 0;
    long lost = 0;
    long finalTotal = 0;
    long expectedTotal = 0;
    long increments = 0;
    long decrements = 0;
    long refused = 0;
    long minFinal = Long.MAX_VALUE;
    for (int c = 0; c < counterIds.size(); c++) {
      long added = 0;
      long taken = 0;
      for (ClientWorkload<CounterOp> w : clients) {
        CounterClient client = (CounterClient) w;
        added += client.added(c);
        taken += client.taken(c);
      }
      long expected = initialBalance + added - taken;
      long actual = CounterTotals.read(collection, counterIds.get(c));
      moved += added + taken;
      lost += Math.abs(actual - expected);
      finalTotal += actual;
      expectedTotal += expected;
      minFinal = Math.min(minFinal, actual);
    }
    for (ClientWorkload<CounterOp> w : clients) {
      CounterClient client = (CounterClient) w;
      increments += client.increments();
      decrements += client.decrements();
      refused += client.refused();
    }
    long minTotal = Math.min(reader.min(), minFinal);
    long negative = reader.negativeReads() + (minFinal < 0 ? 1 : 0);

    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("final_total", finalTotal);
    figures.put("expected_total", expectedTotal);
    figures.put("min_total", minTotal);
    figures.put("initial_total", initialBalance * counterIds.size());
    figures.put("increments", increments);
    figures.put("decrements", decrements);
    figures.put("refused_decrements", refused);
    figures.put("reads", reader.reads());
    figures.put(Verification.VIOLATIONS, negative);
    if (reader.failure() != null) {
      figures.put("reader_error", reader.failure().toString());
    }
    long expectedUnits = moved;
    long visible = expectedUnits - Math.min(lost, expectedUnits);
    return new Verification(expectedUnits, visible, figures);
  }

  @Override
  public void close() {
    reader.stop();
  }
}
