package io.writeguard.lock;

import static com.mongodb.client.model.Updates.set;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import java.time.Duration;
import org.bson.Document;

/**
 * A separate JVM contending for a MongoDB lease lock, started by {@link MongoLockTwoProcessTest}.
 *
 * <p>{@code count <uri> <db> <iterations> <leaseMs>}: acquire, read the counter (claim), write
 * counter + 1 (fenced), release; prints {@code ACK <value>} after each acknowledged write.
 * It prints {@code READY} and waits for a line on stdin first, so both children start together.
 * {@code hold <uri> <db> <iterations> <leaseMs>}: one acknowledged increment, then prints
 * {@code HOLDING <token>} and keeps the lock (the watchdog renews it) until killed.
 */
public final class MongoLockContender {
  static final String KEY = "counter-lock";
  static final String DOC = "counter";

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

  private static void increment(FencedWriter writer, LockHandle lock) {
    long n = writer.claim(lock, DOC).orElseThrow().getLong("n");
    if (writer.updateOne(lock, DOC, set("n", n + 1)) != FencedWriter.Outcome.APPLIED) {
      throw new IllegalStateException("counter document vanished");
    }
    System.out.println("ACK " + (n + 1));
    System.out.flush();
  }
}
