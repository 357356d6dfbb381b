package io.writeguard.app.lab.counter;

import com.mongodb.client.MongoCollection;
import io.writeguard.app.lab.BalanceSettings;
import io.writeguard.app.lab.ClientWorkload;
import io.writeguard.app.lab.ScenarioRun;
import io.writeguard.app.lab.Strategy;
import io.writeguard.app.lab.Verification;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.Document;

/**
 * One strategy's run of {@code counter}: opens the hot balances (generation by generation, see
 * {@link Generations}) in the strategy's layout, keeps a reader sampling their totals while the
 * clients write, and at the end checks every acknowledged operation on its own.
 *
 * <p>Why a ledger: comparing net totals lets a lost increment and a lost decrement of the
 * same amount cancel. So every operation has an id of its own, and every write that changes a
 * balance records {@code {op: id, d: change}} on the {@code ledger} of the document it
 * changes, <em>in the same write</em> ({@code $push} next to the {@code $inc}; the entry added
 * to the replaced document for {@code naive}; a {@link io.writeguard.counter.ChangeRecorder}
 * for the sharded counter, which records each shard's part of a drain and each give-back).
 * A write that is lost loses its entry with it, and an entry cannot be present unless its
 * change is. At the end, from the documents alone:
 * <ul>
 *   <li>an acknowledged operation is <em>visible</em> when the changes recorded for its id add
 *       up to what it was acknowledged as ({@code +a}, {@code -a}, 0 for a refused decrement);
 *       otherwise it is lost. {@code expected} = acknowledged operations;
 *   <li>every balance must equal its starting amount plus the sum of its ledger: a balance
 *       changed without its record (a broken strategy) counts in {@code violations}, so the
 *       ledger cannot hide a change the balance does not show, nor the other way round.
 * </ul>
 * The net check is kept as a figure ({@code lost_units}). Thread-safe for the runner's use
 * (see {@link ScenarioRun}).
 */
final class CounterRun implements ScenarioRun<CounterOp> {
  private final MongoCollection<Document> collection;
  private final int counters;
  private final BalanceSettings balances;
  private final Generations generations;
  private final TotalReader reader;
  private volatile CounterStore store;

  CounterRun(MongoCollection<Document> collection, int counters, int clients,
      BalanceSettings balances) {
    this.collection = collection;
    this.counters = counters;
    this.balances = balances;
    this.generations = new Generations(counters, clients, ids -> store.open(ids, balances));
    this.reader = new TotalReader(collection, () -> generations.ids(generations.current()));
  }

  /** Opens the first balances in the strategy's layout, then starts the reader. */
  @Override
  public void prepare(Strategy<CounterOp> strategy) {
    if (!(strategy instanceof CounterStore s)) {
      throw new IllegalArgumentException("a counter strategy must implement CounterStore, was "
          + strategy.getClass().getName());
    }
    store = s;
    generations.ensure(0);
    reader.start();
  }

  @Override
  public ClientWorkload<CounterOp> client(int index, long seed) {
    return new CounterClient(generations, counters, index, balances.maxAmount(), seed);
  }

  /** What one balance's documents hold: the balance and the sum of its ledger. */
  private static final class Held {
    long total;
    long ledger;
  }

  @Override
  public Verification verify(List<? extends ClientWorkload<CounterOp>> clients) {
    reader.stop();
    Map<String, Held> held = new HashMap<>();
    Map<Long, Long> recorded = new HashMap<>();
    for (Document doc : collection.find()) {
      Object owner = doc.get("counter") instanceof String c ? c : doc.get("_id");
      Held h = held.computeIfAbsent(String.valueOf(owner), k -> new Held());
      h.total += CounterTotals.balanceOf(doc);
      for (Document entry : doc.getList(CounterOp.LEDGER, Document.class, List.of())) {
        long d = ((Number) entry.get("d")).longValue();
        h.ledger += d;
        recorded.merge(((Number) entry.get("op")).longValue(), d, Long::sum);
      }
    }

    long expectedOps = 0;
    long visibleOps = 0;
    long increments = 0;
    long decrements = 0;
    long refused = 0;
    Map<String, Long> net = new HashMap<>();
    for (ClientWorkload<CounterOp> w : clients) {
      CounterClient client = (CounterClient) w;
      for (Map.Entry<Long, Long> op : client.effects().entrySet()) {
        expectedOps++;
        if (recorded.getOrDefault(op.getKey(), 0L).equals(op.getValue())) {
          visibleOps++;
        }
      }
      client.netByBalance().forEach((id, n) -> net.merge(id, n, Long::sum));
      increments += client.increments();
      decrements += client.decrements();
      refused += client.refused();
    }

    long initial = balances.initialBalance();
    long finalTotal = 0;
    long expectedTotal = 0;
    long lostUnits = 0;
    long unledgered = 0;
    long negative = reader.negativeReads();
    long unledgeredBalances = 0;
    long minFinal = Long.MAX_VALUE;
    long opened = generations.opened();
    long used = Math.min(generations.used(), opened);
    for (long g = 0; g < opened; g++) {
      for (String id : generations.ids(g)) {
        Held h = held.getOrDefault(id, new Held());
        long expected = initial + net.getOrDefault(id, 0L);
        if (g < used) { // the totals leave out the balances opened ahead and never used
          finalTotal += h.total;
          expectedTotal += expected;
        }
        lostUnits += Math.abs(h.total - expected);
        long off = Math.abs(h.total - (initial + h.ledger));
        unledgered += off;
        unledgeredBalances += off == 0 ? 0 : 1;
        negative += h.total < 0 ? 1 : 0;
        minFinal = Math.min(minFinal, h.total);
      }
    }

    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("final_total", finalTotal);
    figures.put("expected_total", expectedTotal);
    figures.put("min_total", Math.min(reader.min(), minFinal));
    figures.put("initial_total", initial * counters * used);
    figures.put("increments", increments);
    figures.put("decrements", decrements);
    figures.put("refused_decrements", refused);
    figures.put("reads", reader.reads());
    figures.put("lost_units", lostUnits);
    figures.put("unledgered_units", unledgered);
    figures.put("generations", used);
    figures.put(Verification.VIOLATIONS, negative + unledgeredBalances);
    if (reader.failure() != null) {
      figures.put("reader_error", reader.failure().toString());
    }
    return new Verification(expectedOps, visibleOps, figures);
  }

  @Override
  public void close() {
    reader.stop();
  }
}
