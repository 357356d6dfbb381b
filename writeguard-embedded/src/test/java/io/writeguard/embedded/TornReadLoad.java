package io.writeguard.embedded;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.gte;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.bson.Document;

/**
 * A load that catches torn reads: writers {@code $inc} two fields, {@code a} and {@code b}, that
 * are 50 fields apart in the same update, so in every committed version {@code a == b}; readers
 * fetch the documents in every way a client can and count each document where {@code a != b}.
 *
 * <p>Stored document shape ({@code DOCS} of them, {@code _id} 0..DOCS-1):
 *
 * <pre>{@code {_id: 0, a: 0, f00: "filler-00", ..., f49: "filler-49", b: 0, c: 0}}</pre>
 *
 * {@code c} counts the reader-side {@code findOneAndUpdate}s, so the end state can be checked
 * exactly: sum(a) == sum(b) == acknowledged writes, sum(c) == acknowledged findOneAndUpdates.
 */
final class TornReadLoad {
  static final int DOCS = 4;
  static final int FILLER_FIELDS = 50;
  private static final int WRITERS = 3;
  private static final int CORE_READERS_PER_KIND = 2;

  /** The ways a client reads; each gets its own thread. */
  enum ReadKind {
    FIND,
    FIND_ONE_AND_UPDATE_AFTER,
    FIND_ONE_AND_UPDATE_BEFORE,
    AGGREGATE,
    GET_MORE
  }

  /** What one run saw. */
  static final class Result {
    final Map<ReadKind, Long> reads = new EnumMap<>(ReadKind.class);
    final Map<ReadKind, Long> torn = new EnumMap<>(ReadKind.class);
    long writes;
    long findOneAndUpdates;
    long sumA;
    long sumB;
    long sumC;
    long elapsedMillis;

    long reads(ReadKind... kinds) {
      long n = 0;
      for (ReadKind k : kinds) {
        n += reads.get(k);
      }
      return n;
    }

    long totalReads() {
      return reads(ReadKind.values());
    }

    long totalTorn() {
      return torn.values().stream().mapToLong(Long::longValue).sum();
    }

    @Override
    public String toString() {
      return String.format(
          "reads=%d torn=%d (reads by kind %s, torn by kind %s), writes=%d,"
              + " findOneAndUpdates=%d, sum(a)=%d sum(b)=%d sum(c)=%d, %d ms",
          totalReads(), totalTorn(), reads, torn, writes, findOneAndUpdates, sumA, sumB, sumC,
          elapsedMillis);
    }
  }

  private final MongoCollection<Document> collection;
  private final Limits limits;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final Map<ReadKind, LongAdder> reads = new EnumMap<>(ReadKind.class);
  private final Map<ReadKind, LongAdder> torn = new EnumMap<>(ReadKind.class);
  private final LongAdder writes = new LongAdder();
  private final LongAdder findOneAndUpdates = new LongAdder();

  private TornReadLoad(MongoCollection<Document> collection, Limits limits) {
    this.collection = collection;
    this.limits = limits;
    for (ReadKind k : ReadKind.values()) {
      reads.put(k, new LongAdder());
      torn.put(k, new LongAdder());
    }
  }

  /** When a run stops: enough reads, enough torn reads, or out of time. */
  static final class Limits {
    final long minCoreReads;
    final long minOtherReads;
    final long stopAfterTorn;
    final long maxMillis;

    /**
     * Stop when FIND + FIND_ONE_AND_UPDATE_AFTER have checked {@code minCoreReads} documents and
     * every other kind {@code minOtherReads} (those kinds then idle, leaving the CPU to the core
     * readers), or when {@code stopAfterTorn} torn reads were seen (0: never), or after {@code
     * maxMillis}, whichever comes first.
     */
    Limits(long minCoreReads, long minOtherReads, long stopAfterTorn, long maxMillis) {
      this.minCoreReads = minCoreReads;
      this.minOtherReads = minOtherReads;
      this.stopAfterTorn = stopAfterTorn;
      this.maxMillis = maxMillis;
    }
  }

  /** Runs the load against a fresh server at {@code uri}. */
  static Result run(String uri, Limits limits) throws InterruptedException {
    try (MongoClient client = MongoClients.create(uri)) {
      MongoCollection<Document> collection =
          client.getDatabase("tornreads").getCollection("docs");
      for (int id = 0; id < DOCS; id++) {
        collection.insertOne(initialDocument(id));
      }
      return new TornReadLoad(collection, limits).run();
    }
  }

  private static Document initialDocument(int id) {
    Document d = new Document("_id", id).append("a", 0L);
    for (int i = 0; i < FILLER_FIELDS; i++) {
      d.append(String.format("f%02d", i), String.format("filler-%02d", i));
    }
    return d.append("b", 0L).append("c", 0L);
  }

  private Result run() throws InterruptedException {
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < WRITERS; i++) {
      threads.add(new Thread(guarded(this::write), "torn-writer-" + i));
    }
    for (ReadKind kind : ReadKind.values()) {
      int copies = isCore(kind) ? CORE_READERS_PER_KIND : 1;
      for (int i = 0; i < copies; i++) {
        threads.add(new Thread(guarded(() -> read(kind)), "torn-reader-" + kind + "-" + i));
      }
    }
    long start = System.nanoTime();
    long deadline = start + TimeUnit.MILLISECONDS.toNanos(limits.maxMillis);
    threads.forEach(Thread::start);
    try {
      while (!enoughReads()
          && !enoughTorn()
          && failure.get() == null
          && System.nanoTime() - deadline < 0) {
        Thread.sleep(10);
      }
    } finally {
      stop.set(true);
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(30));
      }
    }
    if (failure.get() != null) {
      throw new AssertionError("load thread failed", failure.get());
    }
    Result result = new Result();
    result.elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    for (ReadKind k : ReadKind.values()) {
      result.reads.put(k, reads.get(k).sum());
      result.torn.put(k, torn.get(k).sum());
    }
    result.writes = writes.sum();
    result.findOneAndUpdates = findOneAndUpdates.sum();
    for (Document d : collection.find()) {
      result.sumA += d.get("a", Number.class).longValue();
      result.sumB += d.get("b", Number.class).longValue();
      result.sumC += d.get("c", Number.class).longValue();
    }
    return result;
  }

  private static boolean isCore(ReadKind kind) {
    return kind == ReadKind.FIND || kind == ReadKind.FIND_ONE_AND_UPDATE_AFTER;
  }

  private boolean enoughReads() {
    long core =
        reads.get(ReadKind.FIND).sum() + reads.get(ReadKind.FIND_ONE_AND_UPDATE_AFTER).sum();
    if (core < limits.minCoreReads) {
      return false;
    }
    for (ReadKind k : ReadKind.values()) {
      if (reads.get(k).sum() < limits.minOtherReads) {
        return false;
      }
    }
    return true;
  }

  private boolean enoughTorn() {
    if (limits.stopAfterTorn <= 0) {
      return false;
    }
    long n = 0;
    for (LongAdder t : torn.values()) {
      n += t.sum();
    }
    return n >= limits.stopAfterTorn;
  }

  private Runnable guarded(Runnable body) {
    return () -> {
      try {
        body.run();
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
        stop.set(true);
      }
    };
  }

  private static int randomId() {
    return ThreadLocalRandom.current().nextInt(DOCS);
  }

  private void write() {
    while (!stop.get()) {
      collection.updateOne(
          eq("_id", randomId()), Updates.combine(Updates.inc("a", 1L), Updates.inc("b", 1L)));
      writes.increment();
    }
  }

  private void read(ReadKind kind) {
    while (!stop.get()) {
      if (!isCore(kind) && reads.get(kind).sum() >= limits.minOtherReads) {
        sleepBriefly();
        continue;
      }
      switch (kind) {
        case FIND:
          check(kind, collection.find(eq("_id", randomId())).first());
          break;
        case FIND_ONE_AND_UPDATE_AFTER:
          check(kind, findOneAndIncrementC(ReturnDocument.AFTER));
          break;
        case FIND_ONE_AND_UPDATE_BEFORE:
          check(kind, findOneAndIncrementC(ReturnDocument.BEFORE));
          break;
        case AGGREGATE:
          for (Document d : collection.aggregate(List.of(Aggregates.match(gte("a", 0L))))) {
            check(kind, d);
          }
          break;
        case GET_MORE:
          // batchSize 1: the first document comes with find, the others through getMore.
          for (Document d : collection.find().batchSize(1)) {
            check(kind, d);
          }
          break;
        default:
          throw new AssertionError(kind);
      }
    }
  }

  private static void sleepBriefly() {
    try {
      Thread.sleep(5);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("load thread interrupted", e);
    }
  }

  private Document findOneAndIncrementC(ReturnDocument which) {
    Document d =
        collection.findOneAndUpdate(
            eq("_id", randomId()),
            Updates.inc("c", 1L),
            new FindOneAndUpdateOptions().returnDocument(which));
    findOneAndUpdates.increment();
    return d;
  }

  private void check(ReadKind kind, Document d) {
    if (d == null) {
      throw new AssertionError(kind + " found no document");
    }
    reads.get(kind).increment();
    if (d.get("a", Number.class).longValue() != d.get("b", Number.class).longValue()) {
      torn.get(kind).increment();
    }
  }
}
