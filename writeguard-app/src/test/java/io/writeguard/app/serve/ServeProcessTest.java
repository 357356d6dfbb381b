package io.writeguard.app.serve;

import static com.mongodb.client.model.Filters.eq;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.writeguard.app.Main;
import io.writeguard.app.testing.TestRedis;
import io.writeguard.testing.TestMongo;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three {@code writeguard serve} JVMs on one database and one Redis, hammered together through
 * real HTTP: the distributed strategies lose nothing, and {@code local-lock} is shown to
 * protect one process only. Ends with SIGTERM to each process and exit status 0.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("long") // an end-to-end run of its own: mvn -Plong test (see README, "Tests")
class ServeProcessTest {
  private static final int PROCESSES = 3;
  private static final long START_TIMEOUT_SECONDS = 90; // three JVMs on a busy 2-core box

  @TempDir static Path tmp;
  private static final List<Process> processes = new ArrayList<>();
  private static final List<String> urls = new ArrayList<>();
  private static final List<File> stderrs = new ArrayList<>();
  private static final Map<String, String> tokens = new ConcurrentHashMap<>();
  private static final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).build();
  private static JwtAuth auth;
  private static String database;

  @BeforeAll
  static void launch() throws Exception {
    Path secret = tmp.resolve("secret");
    Files.write(secret, ServeFixture.SECRET);
    auth = new JwtAuth(JwtSecret.of(ServeFixture.SECRET, "test"));
    database = "wg_ServeProcess_" + System.nanoTime() % 1_000_000;
    String mongoUri = TestMongo.uri();
    String redisUri = TestRedis.uri();
    for (int p = 0; p < PROCESSES; p++) {
      File stderr = tmp.resolve("stderr-" + p + ".txt").toFile();
      stderrs.add(stderr);
      processes.add(new ProcessBuilder(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Dlogback.configurationFile=logback.xml",
          "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", // quicker start, less CPU on a busy box
          "-cp", System.getProperty("java.class.path"),
          Main.class.getName(), "serve", "--port", "0",
          "--mongo-uri", mongoUri, "--redis-uri", redisUri, "--database", database,
          "--jwt-secret-file", secret.toString(), "--lock-wait", "20s"))
          .redirectError(stderr).start());
    }
    List<CompletableFuture<String>> lines = new ArrayList<>();
    for (Process process : processes) {
      BufferedReader out = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      lines.add(CompletableFuture.supplyAsync(() -> readLine(out)));
    }
    for (int p = 0; p < PROCESSES; p++) {
      String url = lines.get(p).get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      assertThat(url).as("stderr: %s", read(stderrs.get(p))).matches("http://127\\.0\\.0\\.1:\\d+");
      urls.add(url);
    }
  }

  @AfterAll
  static void kill() {
    processes.forEach(Process::destroyForcibly);
  }

  @ParameterizedTest
  @ValueSource(strings = {"atomic", "optimistic", "mongo-lock", "redis-lock", "adaptive"})
  @Order(1)
  void distributedStrategiesLoseNoMarkAcrossProcesses(String strategy) throws Exception {
    Result r = hammer(strategy, 16, 6);
    assertThat(r.hammer.unexpectedBodies).as(strategy).isEmpty();
    assertThat(r.hammer.acknowledged).as(strategy).hasSize(16 * 6);
    assertThat(r.lost).as("%s: lost marks across %d processes", strategy, PROCESSES).isZero();
  }

  /**
   * {@code local-lock} is the seed's fix: an in-memory lock, then find and replace by
   * {@code _id}. It orders the requests of one process only; across processes the finds and
   * replaces interleave and a replace erases the other processes' marks. In one process the
   * same load loses nothing ({@link ServeHammerTest} runs local-lock with 16 clients and exact
   * totals).
   */
  @Test
  @Order(2)
  void localLockLosesMarksAcrossProcesses() throws Exception {
    Result r = hammer("local-lock", 16, 6);
    System.out.printf("local-lock across %d processes: %d acknowledged, %d lost, %d refusals"
        + " (409/503)%n", PROCESSES, r.hammer.acknowledged.size(), r.lost,
        r.hammer.refusals.get());
    assertThat(r.lost).as("marks lost by the in-process lock across %d processes", PROCESSES)
        .isPositive();
  }

  @Test
  @Order(3)
  void sigtermStopsEachProcessWithExitZero() throws Exception {
    for (Process process : processes) {
      process.destroy();
    }
    for (int p = 0; p < PROCESSES; p++) {
      assertThat(processes.get(p).waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(processes.get(p).exitValue()).as("stderr: %s", read(stderrs.get(p))).isZero();
      assertThat(read(stderrs.get(p))).contains("writeguard serve: stopped " + urls.get(p));
    }
  }

  private record Result(MarkHammer hammer, int lost) {}

  private Result hammer(String strategy, int users, int perUser) throws Exception {
    List<MarkHammer.Item> items = MarkHammer.items(2, 2, 3);
    String id = createDocument();
    MarkHammer hammer = new MarkHammer(urls,
        user -> tokens.computeIfAbsent(user, u -> auth.issue(u, Duration.ofMinutes(10))));
    hammer.run(id, strategy, MarkHammer.clicks(strategy.hashCode(), users, perUser, items), 12);
    try (MongoClient client = MongoClients.create(TestMongo.settings(TestMongo.uri()))) {
      Document doc = client.getDatabase(database).getCollection("docs")
          .find(eq("_id", new ObjectId(id))).first();
      return new Result(hammer, hammer.lostMarks(doc, items));
    }
  }

  private static String createDocument() throws Exception {
    StringBuilder infos = new StringBuilder("{\"infos\":{");
    for (int k = 0; k < 2; k++) {
      infos.append(k == 0 ? "" : ",").append("\"k").append(k).append("\":{\"s0\":[{},{},{}],\"s1\":[{},{},{}]}");
    }
    infos.append("}}");
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(urls.get(0) + "/docs"))
        .header("Authorization", "Bearer " + auth.issue("creator", Duration.ofMinutes(5)))
        .POST(HttpRequest.BodyPublishers.ofString(infos.toString())).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return ServeFixture.JSON.readTree(r.body()).get("id").asText();
  }

  private static String readLine(BufferedReader reader) {
    try {
      return reader.readLine();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the child's stdout", e);
    }
  }

  private static String read(File file) {
    try {
      return Files.readString(file.toPath());
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }
}
