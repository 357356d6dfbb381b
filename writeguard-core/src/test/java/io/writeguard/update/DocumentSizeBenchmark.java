package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import com.mongodb.event.CommandSucceededEvent;
import io.writeguard.lock.LocalLockService;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * Not a test: the cost of one acknowledged update of one hot document as a function of the
 * document's size. The document is {@code {_id, n: 0L, pad: <S ASCII bytes>, version}}; no
 * caller touches {@code pad}, so whatever an update costs beyond {@code $inc} that grows with
 * S is the price of moving the document around. Contenders, each with every client calling it
 * in a loop:
 *
 * <ul>
 *   <li>{@code $inc}: {@code updateOne(eq(_id), inc("n", 1L))}, the baseline;
 *   <li>{@code group-on}: the default {@link VersionedUpdater} (group commit on) with the
 *       mutator {@code cur -> Mutation.update(inc("n", 1L))}, which does not read {@code n};
 *   <li>{@code group-off}: the same with group commit off;
 *   <li>{@code locked}: the default {@link LockedUpdater} on a default {@link LocalLockService},
 *       same mutator.
 * </ul>
 *
 * Rounds are interleaved (every contender once per round, in an order that rotates); the table
 * shows medians over rounds, after one warm-up round per size that it does not show. Each
 * contender runs twice per round, on two clients of the same server. The plain client gives
 * ops/s, p99, the ratio to {@code $inc}, and the client and other threads' allocation and CPU
 * per acknowledged update ({@link BenchLoad} says how they are measured). The counted client
 * has a {@link CommandListener} that adds up the encoded size of every command sent
 * ({@code commandStarted}) and every reply ({@code commandSucceeded}) and counts the commands;
 * "cmds", "sent B" and "recv B" are those per acknowledged update of that run. Bytes are the
 * command documents as the driver reports them (the OP_MSG framing, some 20-30 bytes a
 * message, is not counted). The counted run is separate because a listener is not free: the
 * driver builds a document for each event (decoding a write's payload) and sizing it costs
 * more, all on the calling thread. Every run checks that the stored {@code n} equals the
 * acknowledged count, prints LOST and makes the exit status 1 if not. Run from the repository
 * root of a worktree (the classpath comes from the compiler's debug output, as the dependency
 * plugin cannot resolve offline here):
 *
 * <pre>
 * touch writeguard-core/src/test/java/io/writeguard/update/DocumentSizeBenchmark.java
 * mvn -B -o -X -pl writeguard-core -am test-compile 2>/dev/null \
 *     | sed -n 's|.* -d [^ ]*core/target/test-classes -classpath \([^ ]*\) .*|\1|p' \
 *     > writeguard-core/target/bench-cp.txt
 * java -Xmx2g -cp "$(cat writeguard-core/target/bench-cp.txt)" \
 *     io.writeguard.update.DocumentSizeBenchmark [seconds-per-round] [rounds] [clients] [sizes]
 * </pre>
 *
 * (defaults {@code 3 3 64 1k,64k,1m}; a size is bytes with an optional k or m suffix, powers
 * of 1024). Uses MONGODB_URI when set, else the embedded server, which then runs in this JVM:
 * its threads' work shows under "other".
 */
public final class DocumentSizeBenchmark {
  private static final String[] NAMES = {"$inc", "group-on", "group-off", "locked"};
  private static final Mutator PLUS_ONE = cur -> Mutation.update(Updates.inc("n", 1L));

  private DocumentSizeBenchmark() {}

  /** Bytes and commands of the counted client's traffic since it was made. */
  private static final class CountingListener implements CommandListener {
    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();
    final AtomicLong sent = new AtomicLong();
    final AtomicLong received = new AtomicLong();
    final AtomicLong commands = new AtomicLong();

    @Override
    public void commandStarted(CommandStartedEvent event) {
      commands.incrementAndGet();
      sent.addAndGet(size(event.getCommand()));
    }

    @Override
    public void commandSucceeded(CommandSucceededEvent event) {
      received.addAndGet(size(event.getResponse()));
    }

    private static long size(BsonDocument document) {
      if (document instanceof RawBsonDocument raw) {
        return raw.getByteBuffer().remaining();
      }
      return new RawBsonDocument(document, CODEC).getByteBuffer().remaining();
    }

    Traffic snapshot() {
      return new Traffic(sent.get(), received.get(), commands.get());
    }
  }

  private record Traffic(long sent, long received, long commands) {
    Traffic minus(Traffic o) {
      return new Traffic(sent - o.sent, received - o.received, commands - o.commands);
    }
  }

  /** The counted run: its traffic and how many updates it acknowledged. */
  private record Counted(Traffic traffic, long done) {
    double per(long total) {
      return done == 0 ? Double.NaN : (double) total / done;
    }
  }

  /** The four contenders on one client's collection. */
  private record Contenders(MongoCollection<Document> docs, VersionedUpdater on,
      VersionedUpdater off, LockedUpdater locked) {
    static Contenders on(MongoCollection<Document> docs) {
      return new Contenders(docs, VersionedUpdater.builder(docs).build(),
          VersionedUpdater.builder(docs).groupCommit(false).build(),
          LockedUpdater.builder(docs, LocalLockService.create()).build());
    }

    BenchLoad.Op op(int contender, String id) {
      return switch (contender) {
        case 0 -> c -> docs.updateOne(eq("_id", id), Updates.inc("n", 1L));
        case 1 -> c -> on.updateOne(id, PLUS_ONE);
        case 2 -> c -> off.updateOne(id, PLUS_ONE);
        default -> c -> locked.updateOne(id, PLUS_ONE);
      };
    }
  }

  public static void main(String[] args) {
    int status;
    try {
      status = run(args);
    } catch (Throwable e) {
      e.printStackTrace();
      status = 2;
    }
    System.exit(status); // the embedded server's threads would keep the JVM alive
  }

  private static int run(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int clients = args.length > 2 ? Integer.parseInt(args[2]) : 64;
    int[] sizes = Arrays.stream((args.length > 3 ? args[3] : "1k,64k,1m").split(","))
        .mapToInt(DocumentSizeBenchmark::parseSize).toArray();
    String db = "wg_DocumentSizeBench_" + System.currentTimeMillis();
    CountingListener listener = new CountingListener();
    int lost = 0;
    try (MongoClient plainClient = TestMongo.newClient(b -> { });
        MongoClient countedClient = TestMongo.newClient(b -> b.addCommandListener(listener))) {
      Contenders plain = Contenders.on(plainClient.getDatabase(db).getCollection("d"));
      Contenders counted = Contenders.on(countedClient.getDatabase(db).getCollection("d"));
      System.out.printf(Locale.ROOT, "%d clients, %s s x %d rounds, max heap %d MB, %s%n",
          clients, seconds, rounds, Runtime.getRuntime().maxMemory() >> 20,
          TestMongo.isEmbedded() ? "embedded server (in this JVM)" : "MONGODB_URI");
      System.out.printf(Locale.ROOT,
          "%-6s %-9s %9s %8s %6s %6s %11s %11s %12s %9s %12s %9s %5s %5s%n",
          "size", "contender", "ops/s", "p99 ms", "ratio", "cmds", "sent B", "recv B",
          "client B", "client us", "other B", "other us", "gc %", "exh");
      for (int size : sizes) {
        String pad = "x".repeat(size);
        List<List<BenchLoad.Result>> results = new ArrayList<>();
        List<List<Counted>> traffic = new ArrayList<>();
        for (int s = 0; s < NAMES.length; s++) {
          results.add(new ArrayList<>());
          traffic.add(new ArrayList<>());
        }
        for (int round = -1; round < rounds; round++) { // round -1 warms up, not shown
          for (int k = 0; k < NAMES.length; k++) { // interleaved, each round in a rotated order
            int s = Math.floorMod(k + round, NAMES.length);
            String tag = size + "-" + round + "-" + s;
            // both documents are inserted and checked through the plain client, so the
            // counted traffic is the measured calls' only
            insert(plain.docs(), "plain-" + tag, pad);
            BenchLoad.Result r = BenchLoad.measure(clients, seconds, plain.op(s, "plain-" + tag));
            lost += check(plain.docs(), "plain-" + tag, r.done(), size, s);
            if (round >= 0) {
              results.get(s).add(r);
            }
            insert(plain.docs(), "counted-" + tag, pad);
            Traffic before = listener.snapshot();
            BenchLoad.Result c =
                BenchLoad.measure(clients, seconds, counted.op(s, "counted-" + tag));
            Traffic used = listener.snapshot().minus(before);
            lost += check(plain.docs(), "counted-" + tag, c.done(), size, s);
            if (round >= 0) {
              traffic.get(s).add(new Counted(used, c.done()));
            }
          }
        }
        double inc = BenchLoad.median(results.get(0), BenchLoad.Result::opsPerSec);
        for (int s = 0; s < NAMES.length; s++) {
          List<BenchLoad.Result> rs = results.get(s);
          List<Counted> ts = traffic.get(s);
          double ops = BenchLoad.median(rs, BenchLoad.Result::opsPerSec);
          System.out.printf(Locale.ROOT,
              "%-6s %-9s %9.0f %8.2f %6.3f %6.2f %11.0f %11.0f %12.0f %9.1f %12.0f %9.1f %5.1f"
                  + " %5d%n",
              label(size), NAMES[s], ops, BenchLoad.median(rs, BenchLoad.Result::p99Ms),
              ops / inc,
              medianOf(ts, t -> t.per(t.traffic().commands())),
              medianOf(ts, t -> t.per(t.traffic().sent())),
              medianOf(ts, t -> t.per(t.traffic().received())),
              BenchLoad.median(rs, r -> r.perDone(r.clientAllocated())),
              BenchLoad.median(rs, r -> r.perDone(r.clientCpuNanos()) / 1e3),
              BenchLoad.median(rs, r -> r.perDone(r.otherAllocated())),
              BenchLoad.median(rs, r -> r.perDone(r.otherCpuNanos()) / 1e3),
              BenchLoad.median(rs, BenchLoad.Result::gcPercent),
              rs.stream().mapToLong(BenchLoad.Result::exhausted).sum());
        }
      }
    }
    if (lost > 0) {
      System.out.println("LOST UPDATES in " + lost + " run(s), see above");
      return 1;
    }
    return 0;
  }

  /** Inserts a hot document {@code id} with a pad of {@code pad}. */
  private static void insert(MongoCollection<Document> docs, String id, String pad) {
    VersionedInsert.insertOne(docs, VersionPolicy.defaults(),
        new Document("_id", id).append("n", 0L).append("pad", pad));
  }

  /** 1 (and a loud line) if the stored n is not the acknowledged count; drops the document. */
  private static int check(MongoCollection<Document> docs, String id, long acknowledged,
      int size, int contender) {
    Document stored = docs.find(eq("_id", id)).first();
    docs.deleteOne(eq("_id", id));
    long n = stored == null ? -1 : stored.getLong("n");
    if (n == acknowledged) {
      return 0;
    }
    System.out.printf("LOST: %s at %s, run %s: %d acknowledged, n = %d stored%n",
        NAMES[contender], label(size), id, acknowledged, n);
    return 1;
  }

  private static double medianOf(List<Counted> runs, ToDoubleFunction<Counted> metric) {
    double[] v = runs.stream().mapToDouble(metric).sorted().toArray();
    return v[v.length / 2];
  }

  private static int parseSize(String s) {
    String t = s.trim().toLowerCase(Locale.ROOT);
    int unit = t.endsWith("k") ? 1 << 10 : t.endsWith("m") ? 1 << 20 : 1;
    return Integer.parseInt(unit == 1 ? t : t.substring(0, t.length() - 1)) * unit;
  }

  private static String label(int size) {
    return size % (1 << 20) == 0 ? (size >> 20) + "MB"
        : size % (1 << 10) == 0 ? (size >> 10) + "KB" : size + "B";
  }
}
