package io.writeguard.app.lab.counter;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.or;

import com.mongodb.client.MongoCollection;
import io.writeguard.app.lab.api.BalanceSettings;
import io.writeguard.app.lab.api.Scenario.ClientWorkload;
import io.writeguard.app.lab.api.Scenario.ScenarioRun;
import io.writeguard.app.lab.api.Scenario.Verification;
import io.writeguard.app.lab.api.Strategy;
import io.writeguard.app.lab.counter.CounterScenario.CounterClient;
import io.writeguard.app.lab.counter.CounterScenario.CounterOp;
import io.writeguard.app.lab.counter.CounterScenario.Generations;
import io.writeguard.app.lab.counter.CounterStrategies.CounterStore;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.regex.Pattern;
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

  /**
   * Reads a balance's total from the documents, whatever the strategy's layout, so that the
   * count of lost updates never depends on the code under test. It sums, over the documents
   * {@code {_id: id}} and {@code {counter: id}}, every field named {@code balance} or
   * {@code balance_shard_<n>}:
   *
   * <pre>{@code
   * single document:  { _id: "g0-c0", balance: 120, version: 7, ledger: [...] }
   * shard fields:     { _id: "g0-c0", balance_shard_0: 12, ..., balance_shard_9: 3 }
   * shard documents:  { _id: "g0-c0#3", counter: "g0-c0", shard: 3, balance: 75 }   (one per shard)
   * }</pre>
   *
   * One {@code find}: on the embedded server it is answered under the collection's lock, so a
   * consistent sum; on a real server the shard documents may be read at slightly different
   * moments (like {@link io.writeguard.counter.ShardedCounter#total}). Stateless.
   */
  static final class CounterTotals {
    static final String FIELD = "balance";
    private static final Pattern SHARD_FIELD = Pattern.compile("balance_shard_\\d+");

    private CounterTotals() {}

    static long read(MongoCollection<Document> collection, String counterId) {
      long total = 0;
      for (Document doc : collection.find(or(eq("_id", counterId), eq("counter", counterId)))) {
        total += balanceOf(doc);
      }
      return total;
    }

    /** The sum of the balance fields of one document. */
    static long balanceOf(Document doc) {
      long total = 0;
      for (var e : doc.entrySet()) {
        if ((e.getKey().equals(FIELD) || SHARD_FIELD.matcher(e.getKey()).matches())
            && e.getValue() instanceof Number n) {
          total += n.longValue();
        }
      }
      return total;
    }
  }

  /**
   * A reader that keeps reading the balances' totals while the clients write, as a dashboard
   * would, and remembers the lowest total it saw. A sharded counter's total is a sum of shards
   * read together; a layout that lets a reader see less than zero (or a moment where a drain
   * has taken from shards and not yet given back) shows up here, not in the final total.
   *
   * <p>One read per balance about every millisecond, so the reader weighs the same on every
   * strategy. Runs on its own daemon thread from {@link #start} to {@link #stop}; the figures
   * are read after {@code stop}, which joins the thread. A failed read ends the sampling (the
   * run will report the server's failure itself) and is remembered.
   */
  static final class TotalReader implements Runnable {
    private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final MongoCollection<Document> collection;
    private final Supplier<List<String>> counterIds;
    private volatile boolean stopped;
    private Thread thread;
    // Written by the reader thread, read after join.
    private long reads;
    private long negativeReads;
    private long min = Long.MAX_VALUE;
    private RuntimeException failure;

    /** {@code counterIds}: the balances to read now (the current generation's). */
    TotalReader(MongoCollection<Document> collection, Supplier<List<String>> counterIds) {
      this.collection = collection;
      this.counterIds = counterIds;
    }

    void start() {
      thread = new Thread(this, "lab-counter-reader");
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void run() {
      try {
        while (!stopped) {
          for (String id : counterIds.get()) {
            record(CounterTotals.read(collection, id));
          }
          LockSupport.parkNanos(PAUSE_NANOS);
        }
      } catch (RuntimeException e) {
        failure = e;
      }
    }

    private void record(long total) {
      reads++;
      if (total < 0) {
        negativeReads++;
      }
      min = Math.min(min, total);
    }

    /** Stops reading and waits for the reader; safe to call more than once. */
    void stop() {
      stopped = true;
      Thread t = thread;
      if (t == null) {
        return;
      }
      try {
        t.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    long reads() {
      return reads;
    }

    long negativeReads() {
      return negativeReads;
    }

    /** The lowest total read, or {@code Long.MAX_VALUE} when nothing was read. */
    long min() {
      return min;
    }

    RuntimeException failure() {
      return failure;
    }
  }
}
