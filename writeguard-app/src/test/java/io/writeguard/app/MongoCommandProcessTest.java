package io.writeguard.app;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.writeguard.testing.TestMongo;
import com.mongodb.client.MongoCollection;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code writeguard mongo --port 0} as a separate JVM, the way other processes share it: read
 * the URI from its stdout, use the database, stop it with a signal, expect exit status 0.
 */
class MongoCommandProcessTest {
  private static final long START_TIMEOUT_SECONDS = 60; // JVM start-up on a busy 2-core box
  private static final long STOP_TIMEOUT_SECONDS = 30;

  @TempDir Path tmp;
  private File stderr;
  private Process process;
  private BufferedReader stdout;

  @BeforeEach
  void launch() throws IOException {
    stderr = tmp.resolve("stderr.txt").toFile();
    List<String> command = new ArrayList<>(defaultSigint());
    command.addAll(
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            // The logging config the shipped jar uses. On the test classpath logback
            // finds two logback-test.xml files and says so on stdout.
            "-Dlogback.configurationFile=logback.xml",
            "-cp",
            System.getProperty("java.class.path"),
            Main.class.getName(),
            "mongo",
            "--port",
            "0"));
    process = new ProcessBuilder(command).redirectError(stderr).start();
    stdout =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  @AfterEach
  void kill() {
    process.destroyForcibly();
  }

  @Test
  void sigtermFromProcessDestroyStopsItWithExitZero() throws Exception {
    String uri = awaitUri();
    insertAndRead(uri);

    process.destroy(); // SIGTERM on Unix (it also closes our end of the child's stdout)

    assertExitedWithZero("SIGTERM");
    assertThat(read(stderr)).contains("writeguard mongo: stopped " + uri);
  }

  @Test
  void sigintStopsItWithExitZeroAndStdoutHeldOnlyTheUri() throws Exception {
    String uri = awaitUri();
    insertAndRead(uri);

    Process kill =
        new ProcessBuilder("kill", "-INT", String.valueOf(process.pid())).inheritIO().start();
    assertThat(kill.waitFor(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).isZero();

    assertExitedWithZero("SIGINT");
    assertThat(stdout.readLine()).as("nothing but the URI on stdout").isNull();
    assertThat(read(stderr)).contains("writeguard mongo: stopped " + uri);
  }

  /**
   * A build started in the background ({@code mvn verify &}, nohup) ignores SIGINT, and a child
   * inherits that: the JVM then installs no handler for it and the SIGINT test would measure
   * the shell, not the command. So the child gets SIGINT's default back when we lack it.
   */
  private static List<String> defaultSigint() throws IOException {
    Path status = Path.of("/proc/self/status");
    if (!Files.isReadable(status)) {
      return List.of();
    }
    for (String line : Files.readAllLines(status)) {
      if (line.startsWith("SigIgn:")) {
        long ignored = Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16);
        boolean sigintIgnored = (ignored & (1L << (2 - 1))) != 0; // SIGINT is signal 2
        return sigintIgnored ? List.of("env", "--default-signal=INT") : List.of();
      }
    }
    return List.of();
  }

  private String awaitUri() throws Exception {
    String uri =
        CompletableFuture.supplyAsync(this::readLine).get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(uri).as("stderr: %s", read(stderr)).matches("mongodb://127\\.0\\.0\\.1:\\d+");
    return uri;
  }

  private static void insertAndRead(String uri) {
    try (MongoClient client = MongoClients.create(TestMongo.settings(uri))) {
      MongoCollection<Document> docs = client.getDatabase("shared").getCollection("docs");
      docs.insertOne(new Document("_id", 1).append("from", "test"));
      assertThat(docs.find(eq("_id", 1)).first().getString("from")).isEqualTo("test");
      // MongoDB 5.0's wire version, so current pymongo and mongosh (which need 9) connect
      assertThat(client.getDatabase("admin").runCommand(new Document("isMaster", 1))
          .getInteger("maxWireVersion")).isEqualTo(13);
    }
  }

  private void assertExitedWithZero(String signal) throws Exception {
    assertThat(process.waitFor(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS))
        .as("exited within %d s after %s", STOP_TIMEOUT_SECONDS, signal)
        .isTrue();
    assertThat(process.exitValue()).as("exit status; stderr: %s", read(stderr)).isZero();
  }

  private String readLine() {
    try {
      return stdout.readLine();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the child's stdout", e);
    }
  }

  private static String read(File file) throws IOException {
    return Files.readString(file.toPath(), StandardCharsets.UTF_8);
  }
}
