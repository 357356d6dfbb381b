package io.writeguard.redis;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.lock.LockHandle;
import io.writeguard.testing.TestMongo;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Real separate JVMs ({@link LockContender}) contending through the Redis lock on one MongoDB
 * document (the embedded MongoDB of this JVM, or MONGODB_URI): exact totals, and a holder killed
 * with SIGKILL whose lock is taken over after its lease with no acknowledged write lost.
 */
@Tag("long") // an end-to-end run of its own: mvn -Plong test (see README, "Tests")
class TwoProcessLockTest {
  private final String prefix = "wgtest:" + UUID.randomUUID().toString().substring(0, 8) + ":";
  private final List<Child> children = new ArrayList<>();

  /** A child JVM and the lines it printed. */
  private record Child(Process process, BlockingQueue<String> lines, List<String> all) {
    String awaitLine(String start, Duration timeout) throws InterruptedException {
      long until = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < until) {
        String line = lines.poll(100, TimeUnit.MILLISECONDS);
        if (line != null && line.startsWith(start)) {
          return line;
        }
      }
      throw new AssertionError("child printed no '" + start + "' within " + timeout + "; output: " + all);
    }
  }

  @AfterEach
  void killChildren() {
    children.forEach(c -> c.process().destroyForcibly());
  }

  @Test
  void twoJvmsIncrementingOneDocumentUnderTheLockLoseNothing() throws Exception {
    MongoDatabase db = TestMongo.freshDatabase("RedisTwoJvm");
    MongoCollection<Document> docs = db.getCollection("docs");
    docs.insertOne(new Document("_id", "hot").append("version", 0L).append("counter", 0L));
    int perChild = 150;
    Child a = start("contend", db, "hot", Integer.toString(perChild));
    Child b = start("contend", db, "hot", Integer.toString(perChild));
    long acked = 0;
    for (Child child : List.of(a, b)) {
      Matcher m = Pattern.compile("ACKED (\\d+) CONFLICTS (\\d+)")
          .matcher(child.awaitLine("ACKED", Duration.ofSeconds(90)));
      assertThat(m.matches()).isTrue();
      assertThat(Integer.parseInt(m.group(2))).as("version moved under the lock").isZero();
      acked += Long.parseLong(m.group(1));
      assertThat(child.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(child.process().exitValue()).as("exit code; output " + child.all()).isZero();
    }
    assertThat(acked).isEqualTo(2L * perChild);
    assertThat(docs.find(eq("_id", "hot")).first().getLong("counter")).isEqualTo(acked);
  }

  @Test
  void aHolderKilledWithSigkillIsTakenOverAfterItsLeaseAndItsWriteSurvives() throws Exception {
    MongoDatabase db = TestMongo.freshDatabase("RedisKill");
    MongoCollection<Document> docs = db.getCollection("docs");
    docs.insertOne(new Document("_id", "hot").append("version", 0L).append("counter", 0L));
    Child holder = start("hold", db, "hot");
    long heldToken = Long.parseLong(holder.awaitLine("HELD", Duration.ofSeconds(60)).substring(5));

    try (RedisLockService locks = RedisLockService.builder().uri(TestRedis.uri()).keyPrefix(prefix).build()) {
      assertThat(locks.tryAcquire("hot")).as("held by the child").isEmpty();
      Thread.sleep(2_000); // twice the child's 1 s lease: its watchdog keeps the lock alive
      assertThat(locks.tryAcquire("hot")).as("still held: renewed by the child's watchdog").isEmpty();

      holder.process().destroyForcibly(); // SIGKILL: no release, no shutdown hook
      assertThat(holder.process().waitFor(20, TimeUnit.SECONDS)).isTrue();

      try (LockHandle handle = locks.acquire("hot", Duration.ofSeconds(20))) {
        assertThat(handle.token()).isGreaterThan(heldToken);
        assertThat(LockContender.increment(docs, "hot")).isTrue();
      }
    }
    assertThat(docs.find(eq("_id", "hot")).first().getLong("counter"))
        .as("the killed holder's acknowledged write and ours").isEqualTo(2L);
  }

  private Child start(String mode, MongoDatabase db, String key, String... more) throws IOException {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx128m", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"),
        LockContender.class.getName(), mode, TestRedis.uri(), TestMongo.uri(), db.getName(), key, prefix));
    command.addAll(List.of(more));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    List<String> all = java.util.Collections.synchronizedList(new ArrayList<>());
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = in.readLine()) != null; ) {
          lines.add(line);
          all.add(line);
        }
      } catch (IOException e) {
        all.add("(output closed: " + e + ")");
      }
    }, "child-output");
    reader.setDaemon(true);
    reader.start();
    Child child = new Child(process, lines, all);
    children.add(child);
    return child;
  }
}
