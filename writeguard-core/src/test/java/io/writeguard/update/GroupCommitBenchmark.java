package io.writeguard.update;

import static com.mongodb.client.model.Filters.eq;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Updates;
import io.writeguard.lock.LocalLockService;
import io.writeguard.testing.TestMongo;
import io.writeguard.version.VersionPolicy;
import io.writeguard.version.VersionedInsert;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;

/**
 * Not a test: measures one hot document, plain {@code $inc} against a read-modify-write through
 * the default {@link VersionedUpdater} and through a {@link LockedUpdater} on a
 * {@code LocalLockService} (fenced, versioned), each with group commit on and off, at several
 * client counts, in interleaved rounds whose order rotates (the position in a round matters on
 * a loaded machine), reporting medians. Run from the repository root:
 *
 * <pre>
 * mvn -B -o -q -pl writeguard-core -am test-compile
 * java -cp "writeguard-core/target/test-classes:writeguard-core/target/classes:$(cat cp.txt)" \
 *     io.writeguard.update.GroupCommitBenchmark [seconds-per-round] [rounds] [clients,...]
 * </pre>
 *
 * (cp.txt from {@code mvn -o -q -pl writeguard-core dependency:build-classpath
 * -Dmdep.outputFile=cp.txt}). Uses MONGODB_URI when set, else the embedded server.
 */
public final class GroupCommitBenchmark {
  private GroupCommitBenchmark() {}

  private interface Op {
    void run(int client) throws Exception;
  }

  private record Result(double opsPerSec, double p99Ms, long done, long exhausted) {}

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    int[] clientCounts = args.length > 2
        ? Arrays.stream(args[2].split(",")).mapToInt(Integer::parseInt).toArray()
        : new int[] {1, 16, 64};
    MongoCollection<Document> docs = TestMongo.freshDatabase("Bench").getCollection("d");
    VersionedUpdater on = VersionedUpdater.builder(docs).build();
    VersionedUpdater off = VersionedUpdater.builder(docs).groupCommit(false).build();
    LocalLockService locks = LocalLockService.create();
    LockedUpdater lockedOn = LockedUpdater.builder(docs, locks).build();
    LockedUpdater lockedOff = LockedUpdater.builder(docs, locks).groupCommit(false).build();
    String[] names = {"$inc", "group-on", "group-off", "locked-on", "locked-off"};
    System.out.printf("%-8s %-10s %12s %10s %14s %10s%n", "clients", "strategy", "ops/s",
        "p99 ms", "ratio to $inc", "exhausted");
    for (int clients : clientCounts) {
      List<List<Result>> results = new ArrayList<>();
      for (int s = 0; s < names.length; s++) {
        results.add(new ArrayList<>());
      }
      for (int round = 0; round < rounds; round++) {
        for (int k = 0; k < names.length; k++) { // interleaved, each round in a rotated order
          int s = (k + round) % names.length;
          String id = "hot-" + clients + "-" + round + "-" + s + "-" + System.nanoTime();
          VersionedInsert.insertOne(docs, VersionPolicy.defaults(),
              new Document("_id", id).append("n", 0L));
          Mutator plusOne = cur -> Mutation.update(Updates.set("n", cur.getLong("n") + 1));
          Op op = switch (s) {
            case 0 -> c -> docs.updateOne(eq("_id", id), Updates.inc("n", 1L));
            case 1 -> c -> on.updateOne(id, plusOne);
            case 2 -> c -> off.updateOne(id, plusOne);
            case 3 -> c -> lockedOn.updateOne(id, plusOne);
            default -> c -> lockedOff.updateOne(id, plusOne);
          };
          Result r = measure(clients, seconds, op);
          long stored = docs.find(eq("_id", id)).first().getLong("n");
          if (stored != r.done()) {
            throw new AssertionError(names[s] + " lost updates: " + r.done() + " acknowledged, "
                + stored + " stored");
          }
          results.get(s).add(r);
        }
      }
      double inc = median(results.get(0), true);
      for (int s = 0; s < names.length; s++) {
        double ops = median(results.get(s), true);
        System.out.printf("%-8d %-10s %12.0f %10.2f %14.2f %10d%n", clients, names[s], ops,
            median(results.get(s), false), ops / inc,
            results.get(s).stream().mapToLong(Result::exhausted).sum());
      }
    }
    System.exit(0);
  }

  private static double median(List<Result> rs, boolean throughput) {
    double[] v = rs.stream().mapToDouble(r -> throughput ? r.opsPerSec() : r.p99Ms()).sorted()
        .toArray();
    return v[v.length / 2];
  }

  private static Result measure(int clients, double seconds, Op op) throws Exception {
    long end = System.nanoTime() + (long) (seconds * 1e9);
    CountDownLatch start = new CountDownLatch(1);
    AtomicLong done = new AtomicLong();
    AtomicLong exhausted = new AtomicLong();
    List<long[]> latencies = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      int client = c;
      long[] lat = new long[200_000];
      latencies.add(lat);
      Thread t = new Thread(() -> {
        int n = 0;
        try {
          start.await();
          while (System.nanoTime() < end && n < lat.length) {
            long t0 = System.nanoTime();
            try {
              op.run(client);
            } catch (RetriesExhaustedException e) {
              exhausted.incrementAndGet(); // not written: neither counted nor timed
              continue;
            }
            lat[n++] = System.nanoTime() - t0;
            done.incrementAndGet();
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        lat[lat.length - 1] = n; // count kept in the last slot
      });
      threads.add(t);
      t.start();
    }
    long t0 = System.nanoTime();
    start.countDown();
    for (Thread t : threads) {
      t.join();
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    List<Long> all = new ArrayList<>();
    for (long[] lat : latencies) {
      int n = (int) lat[lat.length - 1];
      for (int i = 0; i < n; i++) {
        all.add(lat[i]);
      }
    }
    all.sort(null);
    double p99 = all.isEmpty() ? 0 : all.get((int) Math.min(all.size() - 1, all.size() * 0.99)) / 1e6;
    return new Result(done.get() / elapsed, p99, done.get(), exhausted.get());
  }
}
