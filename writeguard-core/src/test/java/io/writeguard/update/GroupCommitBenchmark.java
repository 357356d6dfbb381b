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
import org.bson.Document;

/**
 * Not a test: measures one hot document, plain {@code $inc} against a read-modify-write through
 * the default {@link VersionedUpdater} and through a {@link LockedUpdater} on a
 * {@code LocalLockService} (fenced, versioned), each with group commit on and off, at several
 * client counts, in interleaved rounds whose order rotates (the position in a round matters on
 * a loaded machine), reporting medians ({@link BenchLoad} measures). Run from the repository root:
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
      List<List<BenchLoad.Result>> results = new ArrayList<>();
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
          BenchLoad.Op op = switch (s) {
            case 0 -> c -> docs.updateOne(eq("_id", id), Updates.inc("n", 1L));
            case 1 -> c -> on.updateOne(id, plusOne);
            case 2 -> c -> off.updateOne(id, plusOne);
            case 3 -> c -> lockedOn.updateOne(id, plusOne);
            default -> c -> lockedOff.updateOne(id, plusOne);
          };
          BenchLoad.Result r = BenchLoad.measure(clients, seconds, op);
          long stored = docs.find(eq("_id", id)).first().getLong("n");
          if (stored != r.done()) {
            throw new AssertionError(names[s] + " lost updates: " + r.done() + " acknowledged, "
                + stored + " stored");
          }
          results.get(s).add(r);
        }
      }
      double inc = BenchLoad.median(results.get(0), BenchLoad.Result::opsPerSec);
      for (int s = 0; s < names.length; s++) {
        double ops = BenchLoad.median(results.get(s), BenchLoad.Result::opsPerSec);
        System.out.printf("%-8d %-10s %12.0f %10.2f %14.2f %10d%n", clients, names[s], ops,
            BenchLoad.median(results.get(s), BenchLoad.Result::p99Ms), ops / inc,
            results.get(s).stream().mapToLong(BenchLoad.Result::exhausted).sum());
      }
    }
    System.exit(0);
  }
}
