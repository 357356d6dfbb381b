package io.writeguard.app.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.writeguard.app.Main;
import io.writeguard.app.testing.TestRedis;
import io.writeguard.testing.TestMongo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code writeguard lab --redis-uri} and the lock strategies through the command line. */
class LabRedisOptionTest {
  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int lab(String... args) {
    List<String> all = new ArrayList<>(List.of("lab"));
    all.addAll(List.of(args));
    var cl = Main.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(all.toArray(String[]::new));
  }

  private static String mongoUri() {
    String uri = TestMongo.uri();
    boolean hasPath = uri.substring(uri.indexOf("://") + 3).contains("/");
    return uri + (uri.contains("?") ? "&" : hasPath ? "?" : "/?") + "serverSelectionTimeoutMS=30000";
  }

  @ParameterizedTest
  @ValueSource(strings = {"http://nope", "redis://", "not a uri"})
  void aMalformedRedisUriExitsTwoNamingItAndWritesNothing(String uri) {
    Path json = dir.resolve("r.json");
    int status = lab("--redis-uri", uri, "--strategies", "redis-lock", "--ops", "10",
        "--json", json.toString());
    assertThat(status).isEqualTo(2);
    assertThat(err.toString()).contains("malformed Redis URI '" + uri + "'");
    assertThat(err.toString().lines().count()).isEqualTo(1);
    assertThat(out.toString()).isEmpty();
    assertThat(json).doesNotExist();
  }

  @Test
  void anUnreachableRedisExitsTwoNamingIt() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // free once closed: nothing listens there
    }
    String uri = "redis://127.0.0.1:" + port;
    Path json = dir.resolve("r.json");
    int status = lab("--redis-uri", uri, "--mongo-uri", mongoUri(), "--strategies",
        "local-lock,redis-lock", "--ops", "10", "--json", json.toString());
    assertThat(status).isEqualTo(2);
    assertThat(err.toString()).contains("cannot reach Redis at '" + uri + "'");
    assertThat(out.toString()).isEmpty();
    assertThat(json).doesNotExist();
  }

  @Test
  void aRedisUriIsNotNeededWhenNoStrategyUsesRedis() {
    // An unreachable Redis is never contacted when no strategy needs it.
    int status = lab("--redis-uri", "redis://127.0.0.1:1", "--mongo-uri", mongoUri(),
        "--strategies", "atomic", "--clients", "2", "--ops", "20", "--warmup", "0s");
    assertThat(status).as(err.toString()).isEqualTo(0);
    assertThat(out.toString()).doesNotContain("redis:");
  }

  @Test
  void lockStrategiesRunFromTheCommandLineWithLockColumnsAndJsonFields() throws Exception {
    Path json = dir.resolve("locks.json");
    int status = lab("--mongo-uri", mongoUri(), "--redis-uri", TestRedis.uri(),
        "--strategies", "local-lock,mongo-lock,redis-lock", "--clients", "16", "--docs", "1",
        "--ops", "480", "--rounds", "1", "--warmup", "0s", "--json", json.toString());

    assertThat(status).as(err.toString()).isEqualTo(0);
    assertThat(out.toString()).contains("redis: external at " + TestRedis.uri());
    assertThat(out.toString()).containsPattern("retries +lock p99 ms +lock t/o");
    JsonNode results = new ObjectMapper().readTree(json.toFile()).get("results");
    assertThat(results).hasSize(3);
    for (JsonNode r : results) {
      assertThat(r.get("acknowledged").asLong() + r.get("errors").asLong()).isEqualTo(480);
      assertThat(r.get("lost_updates").asLong()).isZero();
      assertThat(r.get("lock_wait_ms").get("p99").isNumber()).isTrue();
      assertThat(r.has("lock_timeouts")).isTrue();
      assertThat(r.get("fenced_rejections").asLong()).isZero();
    }
  }

  @Test
  void helpListsTheRedisOptionAndTheNewStrategies() {
    assertThat(lab("--help")).isEqualTo(0);
    assertThat(out.toString()).contains("--redis-uri", "local-lock", "mongo-lock", "redis-lock",
        "adaptive");
  }
}
