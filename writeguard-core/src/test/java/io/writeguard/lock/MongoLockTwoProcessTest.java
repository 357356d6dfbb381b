package io.writeguard.lock;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import io.writeguard.testing.TestMongo;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Two JVM processes contend through the MongoDB lease lock; one is killed with SIGKILL. */
@Tag("long") // an end-to-end run of its own: mvn -Plong test (see README, "Tests")
class MongoLockTwoProcessTest {
  private final MongoDatabase db = TestMongo.freshDatabase("TwoProcess");
  private final MongoCollection<Document> data = db.getCollection("data");
  private final List<Process> children = new ArrayList<>();

  @AfterEach
  void killChildren() {
    children.forEach(Process::destroyForcibly);
  }

  @Test
  void twoProcessesIncrementOneDocumentWithAnExactTotal() throws Exception {
    data.insertOne(new Document("_id", MongoLockContender.DOC).append("n", 0L));
    int perProcess = 40;
    Child a = start("count", perProcess, 5_000);
    Child b = start("count", perProcess, 5_000);
    a.awaitLine("READY", Duration.ofSeconds(60));
    b.awaitLine("READY", Duration.ofSeconds(60));
    a.go();
    b.go();
    List<String> outA = a.awaitExit(Duration.ofSeconds(90));
    List<String> outB = b.awaitExit(Duration.ofSeconds(90));

    List<Long> acks = new ArrayList<>(acks(outA));
    acks.addAll(acks(outB));
    assertThat(outA).contains("DONE");
    assertThat(outB).contains("DONE");
    long stale = outA.stream().filter(l -> l.startsWith("STALE")).count()
        + outB.stream().filter(l -> l.startsWith("STALE")).count();
    long total = data.find().first().getLong("n");
    // A lease lost under load makes an iteration refused (STALE), never lost or doubled.
    assertThat(acks.size() + stale).isEqualTo(2 * perProcess);
    assertThat(acks.size()).isGreaterThan(perProcess);
    assertThat(total).as("every acknowledged increment is in the document").isEqualTo(acks.size());
    assertThat(acks).as("each value acknowledged once: no two holders at once")
        .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, total).boxed().collect(Collectors.toList()));
    // Both ran at once: neither process's values are one contiguous block (it yields when contended).
    assertThat(isContiguous(acks(outA))).as("A did not wait for B to finish: %s", acks(outA)).isFalse();
    assertThat(isContiguous(acks(outB))).as("B did not wait for A to finish: %s", acks(outB)).isFalse();
  }

  @Test
  void twoProcessesOfEightThreadsThroughLockedUpdatersKeepEveryAcknowledgedMarkOnce()
      throws Exception {
    // Group commit combines each process's threads; only the lock and the fence stand between
    // the two processes' batches (no version filter), so a second holder would lose marks.
    data.insertOne(new Document("_id", MongoLockContender.DOC).append("version", 0L)
        .append("log", List.of()));
    int perThread = 25;
    Child a = start("batched", perThread, 5_000);
    Child b = start("batched", perThread, 5_000);
    a.awaitLine("READY", Duration.ofSeconds(60));
    b.awaitLine("READY", Duration.ofSeconds(60));
    a.go();
    b.go();
    List<String> outA = a.awaitExit(Duration.ofSeconds(90));
    List<String> outB = b.awaitExit(Duration.ofSeconds(90));

    List<String> marks = new ArrayList<>(marks(outA));
    marks.addAll(marks(outB));
    assertThat(outA).contains("DONE");
    assertThat(outB).contains("DONE");
    long stale = outA.stream().filter(l -> l.startsWith("STALE")).count()
        + outB.stream().filter(l -> l.startsWith("STALE")).count();
    assertThat(marks.size() + stale).isEqualTo(2L * MongoLockContender.THREADS * perThread);
    assertThat(marks(outA)).isNotEmpty();
    assertThat(marks(outB)).isNotEmpty();
    List<String> log = data.find().first().getList("log", String.class);
    assertThat(log).as("every acknowledged mark, each once, and nothing else")
        .containsExactlyInAnyOrderElementsOf(marks);
    assertThat(data.find().first().getLong("version")).as("raised by every write and claim")
        .isGreaterThanOrEqualTo(marks.size());
  }

  private static List<String> marks(List<String> lines) {
    return lines.stream().filter(l -> l.startsWith("MARK "))
        .map(l -> l.substring("MARK ".length())).collect(Collectors.toList());
  }

  @Test
  void aKilledHolderIsTakenOverAfterItsLeaseWithNoAcknowledgedWriteLost() throws Exception {
    data.insertOne(new Document("_id", MongoLockContender.DOC).append("n", 0L));
    Child holder = start("hold", 1, 3_000);
    String holding = holder.awaitLine("HOLDING", Duration.ofSeconds(60));
    long childToken = Long.parseLong(holding.substring("HOLDING ".length()));

    try (MongoLeaseLockService locks = MongoLeaseLockService.builder(db, "locks")
        .lease(Duration.ofSeconds(10)).noCleanup().build()) {
      Thread.sleep(3_500); // longer than the child's lease: its watchdog keeps it
      assertThat(locks.tryAcquire(MongoLockContender.KEY)).as("the live child still holds the lock").isEmpty();

      holder.process.destroyForcibly(); // SIGKILL: no release, no shutdown hook
      assertThat(holder.process.waitFor(30, TimeUnit.SECONDS)).isTrue();

      FencedWriter writer = FencedWriter.of(data);
      try (LockHandle lock = locks.acquire(MongoLockContender.KEY, Duration.ofSeconds(20))) {
        assertThat(lock.token()).isGreaterThan(childToken);
        long n = writer.claim(lock, MongoLockContender.DOC).orElseThrow().getLong("n");
        assertThat(n).as("the killed child's acknowledged increment survived").isEqualTo(1);
        assertThat(writer.updateOne(lock, MongoLockContender.DOC, com.mongodb.client.model.Updates.set("n", n + 1)))
            .isEqualTo(FencedWriter.Outcome.APPLIED);
      }
    }
    List<Long> acks = acks(holder.lines());
    assertThat(acks).as("the child's acknowledged increments").containsExactly(1L);
    assertThat(data.find().first().getLong("n")).isEqualTo(acks.size() + 1);
  }

  private Child start(String mode, int iterations, long leaseMs) throws IOException {
    String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    File log = Files.createTempFile("contender-", ".log").toFile();
    log.deleteOnExit();
    ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        MongoLockContender.class.getName(), mode, TestMongo.uri(), db.getName(),
        String.valueOf(iterations), String.valueOf(leaseMs))
        .redirectError(log);
    Process process = builder.start();
    children.add(process);
    return new Child(process, log);
  }

  private static boolean isContiguous(List<Long> values) {
    return values.get(values.size() - 1) - values.get(0) == values.size() - 1;
  }

  private static List<Long> acks(List<String> lines) {
    return lines.stream().filter(l -> l.startsWith("ACK ")).map(l -> Long.parseLong(l.substring(4)))
        .collect(Collectors.toList());
  }

  /** A child JVM whose stdout lines are collected by a reader thread. */
  private static final class Child {
    final Process process;
    final File log;
    private final BlockingQueue<String> pending = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();
    private final Thread reader;

    Child(Process process, File log) {
      this.process = process;
      this.log = log;
      this.reader = new Thread(() -> {
        try (BufferedReader in = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line; (line = in.readLine()) != null; ) {
            pending.add(line);
          }
        } catch (IOException e) {
          pending.add("READ-FAILED " + e);
        }
      });
      reader.setDaemon(true);
      reader.start();
    }

    void go() throws IOException {
      process.getOutputStream().write("GO\n".getBytes(StandardCharsets.UTF_8));
      process.getOutputStream().flush();
    }

    String awaitLine(String prefix, Duration timeout) throws Exception {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        String line = pending.poll(100, TimeUnit.MILLISECONDS);
        if (line != null) {
          seen.add(line);
          if (line.startsWith(prefix)) {
            return line;
          }
        }
      }
      throw new AssertionError("no '" + prefix + "' line within " + timeout + "; stdout " + seen
          + "; stderr " + Files.readString(log.toPath()));
    }

    List<String> awaitExit(Duration timeout) throws Exception {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("child still running after " + timeout + "; stderr " + Files.readString(log.toPath()));
      }
      List<String> lines = lines();
      assertThat(process.exitValue()).as("exit code; stderr %s", Files.readString(log.toPath())).isZero();
      return lines;
    }

    List<String> lines() throws InterruptedException {
      reader.join(10_000);
      pending.drainTo(seen);
      return seen;
    }
  }
}
