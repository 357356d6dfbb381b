package io.writeguard.lock;

import static com.mongodb.client.model.Updates.set;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.update.LockedUpdater;
import io.writeguard.update.Mutation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;

/**
 * A separate JVM contending for a MongoDB lease lock, started by {@link MongoLockTwoProcessTest}.
 *
 * <p>{@code count <uri> <db> <iterations> <leaseMs>}: acquire, read the counter (claim), write
 * counter + 1 (fenced), release; prints {@code ACK <value>} after each acknowledged write.
 * It prints {@code READY} and waits for a line on stdin first, so both children start together.
 * {@code hold <uri> <db> <iterations> <leaseMs>}: one acknowledged increment, then prints
 * {@code HOLDING <token>} and keeps the lock (the watchdog renews it) until killed.
 * {@code batched <uri> <db> <iterations> <leaseMs>}: after {@code READY} and a line on stdin,
 * {@value #THREADS} threads each push {@code iterations} unique marks to the counter
 * document's {@code log} through one {@code LockedUpdater} (group commit, fenced, no version
 * filter: only the lock and the fence guard the writes); prints {@code MARK <mark>} after each
 * acknowledged one.
 */
public final class MongoLockContender {
  static final String KEY = "counter-lock";
  static final String DOC = "counter";
  static final int THREADS = 8;

  private MongoLockContender() {}

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    int iterations = Integer.parseInt(args[3]);
    Duration lease = Duration.ofMillis(Long.parseLong(args[4]));
    try (MongoClient client = MongoClients.create(args[1])) {
      MongoDatabase db = client.getDatabase(args[2]);
      MongoCollection<Document> data = db.getCollection("data");
      FencedWriter writer = FencedWriter.of(data);
      MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "locks").lease(lease)
          .backoff(Duration.ofMillis(2), Duration.ofMillis(30)).build();
      db.runCommand(new Document("ping", 1)); // connect before taking a lease
      if (mode.equals("hold")) {
        while (true) {
          LockHandle held = locks.acquire(KEY, Duration.ofSeconds(60));
          try {
            increment(writer, held);
          } catch (StaleLockException e) { // a cold JVM on a loaded machine may outlive its lease
            System.out.println("STALE " + e.getMessage());
            held.close();
            continue;
          }
          System.out.println("HOLDING " + held.token());
          System.out.flush();
          Thread.sleep(Long.MAX_VALUE);
        }
      }
      System.out.println("READY");
      System.out.flush();
      new java.io.BufferedReader(new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8)).readLine();
      if (mode.equals("batched")) {
        batched(data, locks, iterations);
        locks.close();
        System.out.println("DONE");
        return;
      }
      for (int i = 0; i < iterations; i++) {
        try (LockHandle lock = locks.acquire(KEY, Duration.ofSeconds(60))) {
          increment(writer, lock);
        } catch (StaleLockException e) {
          System.out.println("STALE " + e.getMessage());
        }
      }
      locks.close();
      System.out.println("DONE");
    }
  }

  private static void batched(MongoCollection<Document> data, LockService locks, int iterations)
      throws InterruptedException {
    LockedUpdater updater = LockedUpdater.builder(data, locks).versionFilter(false)
        .lockWait(Duration.ofSeconds(60)).build();
    String process = Long.toString(ProcessHandle.current().pid());
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      threads.add(new Thread(() -> {
        for (int i = 0; i < iterations; i++) {
          String mark = process + "-" + thread + "-" + i;
          try {
            updater.updateOne(DOC, doc -> {
              List<String> log = new ArrayList<>(doc.getList("log", String.class));
              log.add(mark);
              doc.put("log", log);
              return Mutation.replace(doc);
            });
            print("MARK " + mark);
          } catch (StaleLockException e) {
            print("STALE " + e.getMessage());
          }
        }
      }));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
  }

  private static synchronized void print(String line) {
    System.out.println(line);
    System.out.flush();
  }

  private static void increment(FencedWriter writer, LockHandle lock) {
    long n = writer.claim(lock, DOC).orElseThrow().getLong("n");
    if (writer.updateOne(lock, DOC, set("n", n + 1)) != FencedWriter.Outcome.APPLIED) {
      throw new IllegalStateException("counter document vanished");
    }
    System.out.println("ACK " + (n + 1));
    System.out.flush();
  }
}
