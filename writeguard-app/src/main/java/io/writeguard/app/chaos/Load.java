package io.writeguard.app.chaos;

import com.mongodb.client.MongoCollection;
import io.writeguard.app.readinfo.MarkReadException;
import io.writeguard.app.readinfo.MarkResult;
import io.writeguard.app.readinfo.NoSuchDocumentException;
import io.writeguard.app.readinfo.NoSuchItemException;
import io.writeguard.app.readinfo.ReadItem;
import io.writeguard.deadline.Deadlines;
import io.writeguard.lock.LockTimeoutException;
import io.writeguard.lock.StaleLockException;
import io.writeguard.update.DocumentNotFoundException;
import io.writeguard.update.RetriesExhaustedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * Client threads that run operations until stopped, recording each one. Every pair of workload
 * and strategy has its own document, shared by every client process, so the strategies run
 * side by side under the same fault. Thread-safe.
 */
final class Load {
  static final String READINFO = "readinfo";
  static final String COUNTER = "counter";
  static final List<String> WORKLOADS = List.of(READINFO, COUNTER);
  /**
   * The workload of the rows measured through serve JVMs during the black hole: HTTP marks,
   * not one of the {@link #WORKLOADS} that run in process.
   */
  static final String SERVE_WORKLOAD = "serve";
  /** The items a mark goes to: {@code infos.k0.s0.0..2}. */
  static final int ITEMS = 3;

  private final Backends backends;
  private final Consumer<Op> sink;
  private final String client;
  private final List<String> strategies;
  private final int threadsPerPair;
  private final AtomicLong seq = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopped;

  Load(Backends backends, Consumer<Op> sink, String client, List<String> strategies,
      int threadsPerPair) {
    this.backends = backends;
    this.sink = sink;
    this.client = client;
    this.strategies = strategies;
    this.threadsPerPair = threadsPerPair;
  }

  /** The document of one workload (or serve fault) and strategy: one id in every process. */
  static ObjectId docId(String scope, String strategy) {
    return new ObjectId(String.format("%08x%016x", scope.hashCode(),
        Integer.toUnsignedLong(strategy.hashCode())));
  }

  /** Creates the documents of every workload and strategy (a fresh database per fault). */
  static void seed(MongoCollection<Document> docs, List<String> strategies) {
    for (String strategy : strategies) {
      seedReadInfo(docs, docId(READINFO, strategy));
      docs.insertOne(LedgerOps.seed(docId(COUNTER, strategy)));
    }
  }

  /** A document with {@value #ITEMS} unread items at {@code infos.k0.s0}. */
  static void seedReadInfo(MongoCollection<Document> docs, ObjectId id) {
    List<Document> items = new ArrayList<>();
    for (int i = 0; i < ITEMS; i++) {
      items.add(new Document("read", new ArrayList<>()));
    }
    docs.insertOne(new Document("_id", id)
        .append("infos", new Document("k0", new Document("s0", items)))
        .append("version", 0L));
  }

  void start() {
    for (String strategy : strategies) {
      for (String workload : WORKLOADS) {
        for (int t = 0; t < threadsPerPair; t++) {
          Thread thread = new Thread(() -> loop(workload, strategy),
              "chaos-" + client + "-" + workload + "-" + strategy + "-" + t);
          thread.setDaemon(true);
          threads.add(thread);
          thread.start();
        }
      }
    }
  }

  /** Stops invoking new operations and waits for those in flight (each is bounded). */
  void stop() throws InterruptedException {
    stopped = true;
    for (Thread t : threads) {
      t.join(120_000);
    }
  }

  private void loop(String workload, String strategy) {
    while (!stopped) {
      sink.accept(run(workload, strategy, false));
      try {
        Thread.sleep(ThreadLocalRandom.current().nextInt(5, 25));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Runs one operation and records how it ended. */
  Op run(String workload, String strategy, boolean held) {
    String id = client + "-" + seq.incrementAndGet();
    long amount = 0;
    if (workload.equals(COUNTER)) {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      // A paused operation is a credit: a debit might be refused for the balance before it
      // ever reaches the fence, and then the pause would test nothing.
      amount = held ? 1 : random.nextInt(100) < 45 ? random.nextInt(1, 4) : -random.nextInt(1, 5);
    }
    long startMillis = System.currentTimeMillis();
    long start = System.nanoTime();
    Op.Outcome outcome;
    String detail;
    int rejections = 0;
    try {
      // Each operation runs under its deadline, as a request handler would.
      long credit = amount;
      int[] rejected = new int[1];
      detail = Deadlines.within(backends.settings.deadline(), () -> {
        if (workload.equals(READINFO)) {
          MarkResult r = backends.mark(strategy).mark(
              new ReadItem(docId(READINFO, strategy), "k0", "s0", (int) (seq.get() % ITEMS)), id);
          rejected[0] = r.fencedRejections();
          return "attempts=" + r.attempts();
        }
        LedgerOps.LAST_TOKEN.remove();
        rejected[0] = backends.ledger(strategy).apply(docId(COUNTER, strategy), id, credit);
        Long token = LedgerOps.LAST_TOKEN.get();
        return token == null ? "" : "token=" + token;
      });
      rejections = rejected[0];
      outcome = Op.Outcome.ACK;
    } catch (RuntimeException e) {
      outcome = classify(e);
      detail = e.getClass().getSimpleName() + ": " + e.getMessage();
      if (e instanceof StaleLockException) {
        rejections = Math.max(rejections, 1); // the fence refused it on every try
      }
    }
    return new Op(id, workload, strategy, client, outcome, startMillis, System.nanoTime() - start,
        amount, rejections, held, detail);
  }

  /**
   * FAIL only for refusals that guarantee nothing was written; every other error (a timeout,
   * a reset, a lock backend that failed while releasing) may have been applied: UNKNOWN.
   */
  static Op.Outcome classify(Throwable e) {
    if (e instanceof LedgerOps.Refused || e instanceof LockTimeoutException
        || e instanceof StaleLockException || e instanceof RetriesExhaustedException
        || e instanceof DocumentNotFoundException || e instanceof NoSuchDocumentException
        || e instanceof NoSuchItemException || e instanceof MarkReadException) {
      return Op.Outcome.FAIL;
    }
    return Op.Outcome.UNKNOWN;
  }
}
