package io.writeguard.update;

import com.mongodb.MongoClientSettings;
import com.mongodb.client.model.Updates;
import io.writeguard.Sleeper;
import io.writeguard.Ticker;
import io.writeguard.internal.Deadline;
import io.writeguard.monitor.WriteGuardListener;
import io.writeguard.version.VersionPolicy;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.conversions.Bson;
import org.bson.types.Binary;
import org.bson.types.ObjectId;

/**
 * Not a test: the client-side cost of one caller in a group-commit round, without a server.
 * A store that answers every read with the same document ({@code {_id, version, bits: <B
 * bytes>}}) and every write with "matched" runs batches of N callers, each setting one bit of
 * {@code bits} as the bench's workload does ({@code $set: {bits: <new Binary>}}); beside it,
 * the same N changes applied one after another to one {@link Document} with one decode of the
 * read and one encode of the write, as the bench's flat-combining reference does. It prints
 * CPU nanoseconds and bytes allocated per caller of each, measured on this thread
 * ({@code com.sun.management.ThreadMXBean}), and their ratio: the work a round does per caller
 * on its leader's thread, where the other callers wait. Run from a worktree's root, with the
 * classpath found as {@link DocumentSizeBenchmark} says:
 *
 * <pre>
 * java -cp "$(cat writeguard-core/target/bench-cp.txt)" \
 *     io.writeguard.update.RoundCostBenchmark [callers=64] [bitsBytes=4096] [seconds=5]
 * </pre>
 */
public final class RoundCostBenchmark {
  private static final CodecRegistry REGISTRY = MongoClientSettings.getDefaultCodecRegistry();
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private RoundCostBenchmark() {}

  public static void main(String[] args) {
    int callers = args.length > 0 ? Integer.parseInt(args[0]) : 64;
    int bitsBytes = args.length > 1 ? Integer.parseInt(args[1]) : 4096;
    long seconds = args.length > 2 ? Long.parseLong(args[2]) : 5;
    ObjectId id = new ObjectId();
    BsonDocument state = new BsonDocument("_id", new BsonObjectId(id))
        .append("version", new BsonInt64(1000))
        .append("bits", new BsonBinary(new byte[bitsBytes]));
    RawBsonDocument raw = RawBsonDocument.parse(state.toJson());
    FixedStore store = new FixedStore(raw);
    VersionPolicy versions = VersionPolicy.defaults();
    UpdateLoop loop = new UpdateLoop(store, versions, RetryPolicy.defaults(),
        WriteGuardListener.NOOP, "bench", Ticker.system(), Sleeper.system(), new Random(1));
    BatchUpdate batch = new BatchUpdate(loop, store, versions, RetryPolicy.defaults(),
        WriteGuardListener.NOOP, Ticker.system(), Sleeper.system(), new Random(1));
    long[] op = {0};
    Runnable library = () -> batch.run(id, new SetBitRequests(callers, op));
    Runnable reference = () -> {
      Document doc = raw.decode(REGISTRY.get(Document.class));
      for (int i = 0; i < callers; i++) {
        doc.put("bits", new Binary(withBit(((Binary) doc.get("bits")).getData(), op[0]++)));
      }
      doc.put("version", 1000L + callers);
      doc.toBsonDocument(BsonDocument.class, REGISTRY); // the write's encoding
    };
    for (int round = 0; round < 3; round++) {
      double[] lib = measure(library, callers, seconds);
      double[] ref = measure(reference, callers, seconds);
      System.out.printf(Locale.ROOT, "round %d, %d callers, bits %d B: library %.0f ns CPU %.0f B"
          + " per caller; reference %.0f ns %.0f B; library/reference %.2fx CPU %.2fx bytes%n",
          round + 1, callers, bitsBytes, lib[0], lib[1], ref[0], ref[1], lib[0] / ref[0],
          lib[1] / ref[1]);
    }
  }

  /** {CPU nanoseconds, bytes} per caller over {@code seconds} of batches. */
  private static double[] measure(Runnable batch, int callers, long seconds) {
    long thread = Thread.currentThread().getId();
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    long batches = 0;
    long t0 = THREADS.getCurrentThreadCpuTime();
    long b0 = THREADS.getThreadAllocatedBytes(thread);
    while (System.nanoTime() < end) {
      batch.run();
      batches++;
    }
    double n = (double) batches * callers;
    return new double[] {(THREADS.getCurrentThreadCpuTime() - t0) / n,
        (THREADS.getThreadAllocatedBytes(thread) - b0) / n};
  }

  static byte[] withBit(byte[] bits, long opId) {
    int index = (int) (opId % (bits.length * 8L));
    byte[] out = Arrays.copyOf(bits, bits.length);
    out[index / 8] |= (byte) (1 << (index % 8));
    return out;
  }

  /** N callers, each setting its own bit of {@code bits}, as the bench's workload. */
  private static final class SetBitRequests implements BatchUpdate.Requests {
    private final int size;
    private final long[] op;
    private final long submitted = System.nanoTime();

    SetBitRequests(int size, long[] op) {
      this.size = size;
      this.op = op;
    }

    public int size() {
      return size;
    }

    public Mutator mutator(int i) {
      return doc -> Mutation.update(Updates.set("bits",
          new Binary(withBit(((Binary) doc.get("bits")).getData(), op[0]++))));
    }

    public boolean returnAfter(int i) {
      return false;
    }

    public long submittedNanos(int i) {
      return submitted;
    }

    public Deadline deadline(int i) {
      return null;
    }

    public boolean isCallersOwn(int i) {
      return false;
    }

    public void succeed(int i, UpdateOutcome outcome) {}

    public void fail(int i, Throwable error) {
      throw new IllegalStateException("caller " + i + " failed", error);
    }

    public int attemptsMade(int i) {
      return 0;
    }

    public void handBack(int i, int attemptsMade) {
      throw new IllegalStateException("caller " + i + " handed back: there is no leader here");
    }
  }

  /** Every read gives the same document; every write matches and changes nothing. */
  private static final class FixedStore implements Store {
    private final RawBsonDocument doc;

    FixedStore(RawBsonDocument doc) {
      this.doc = doc;
    }

    public String collectionName() {
      return "bench";
    }

    public CodecRegistry codecRegistry() {
      return REGISTRY;
    }

    public RawBsonDocument read(Object id) {
      return doc;
    }

    public RawBsonDocument probe(Object id, String versionField) {
      return doc;
    }

    public WriteResult update(Bson filter, BsonDocument update, boolean returnAfter) {
      filter.toBsonDocument(BsonDocument.class, REGISTRY); // the driver renders it to send it
      new BsonDocumentCodec().encode(new org.bson.BsonDocumentWriter(new BsonDocument()),
          update, org.bson.codecs.EncoderContext.builder().build());
      return new WriteResult(true, null);
    }

    public WriteResult replace(Bson filter, Document replacement, boolean returnAfter) {
      replacement.toBsonDocument(BsonDocument.class, REGISTRY);
      return new WriteResult(true, null);
    }
  }
}
