package io.writeguard.app.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.writeguard.app.Main;
import io.writeguard.app.lab.api.LabStrategy;
import io.writeguard.app.lab.api.ScenarioEntry;
import io.writeguard.app.lab.readinfo.ReadInfoScenario;
import io.writeguard.app.lab.readinfo.ReadInfoScenario.Mark;
import io.writeguard.embedded.EmbeddedMongo;
import io.writeguard.testing.TestMongo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

class LabCommandTest {
  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(CommandLine cl, String... args) {
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(args);
  }

  /** The test server, patient enough for a loaded machine (3 s is MongoTarget's default). */
  private static String testUri() {
    String uri = TestMongo.uri();
    boolean hasPath = uri.substring(uri.indexOf("://") + 3).contains("/");
    return uri + (uri.contains("?") ? "&" : hasPath ? "?" : "/?") + "serverSelectionTimeoutMS=30000";
  }

  private int lab(String... args) {
    List<String> all = new ArrayList<>(List.of("lab"));
    all.addAll(List.of(args));
    return run(Main.commandLine(), all.toArray(String[]::new));
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(delimiter = '|', value = {
      "--strategies | naive,bogus     | bogus",
      "--strategies | ''              | ''",
      "--scenario   | nosuch          | nosuch",
      "--clients    | 0               | was 0",
      "--clients    | -3              | was -3",
      "--clients    | 5000            | was 5000",
      "--docs       | 0               | was 0",
      "--duration   | abc             | abc",
      "--duration   | 0s              | 0s",
      "--duration   | -1s             | -1s",
      "--duration   | 10              | '10'",
      "--warmup     | soon            | soon",
      "--ops        | 0               | was 0",
      "--group-commit | maybe         | maybe",
      "--group-commit | ON            | ON",
      "--processes  | 0               | --processes must be between 1 and the clients (16), was 0",
      "--processes  | 1,-2            | was -2",
      "--processes  | 1,17            | was 17",
      "--processes  | 1,x             | --processes must be whole numbers",
      "--processes  | 2,2             | --processes lists 2 twice",
      "--processes  | 1,,2            | --processes must be whole numbers",
      "--mongo-uri  | http://nope     | http://nope",
      "--mongo-uri  | mongodb://      | mongodb://",
  })
  void badInputExitsTwoWithOneLineNamingTheValueAndWritesNothing(
      String option, String value, String named) {
    Path json = dir.resolve("report.json");
    int status = option.equals("--ops")
        ? lab(option, value, "--json", json.toString())
        : lab(option, value, "--json", json.toString(), "--ops", "10");
    assertThat(status).isEqualTo(2);
    assertThat(err.toString().lines().filter(l -> !l.isBlank()).findFirst().orElse(""))
        .contains(named.replace("'", value.isEmpty() ? "'" : ""));
    assertThat(err.toString().lines().count()).isEqualTo(1);
    assertThat(out.toString()).isEmpty();
    assertThat(json).doesNotExist();
  }

  @Test
  void groupCommitOffIsShownInTheHeaderAndTheJson() throws Exception {
    Path json = dir.resolve("report.json");
    assertThat(lab("--strategies", "optimistic,local-lock", "--clients", "4", "--docs", "1",
        "--ops", "40", "--rounds", "1", "--warmup", "0s", "--group-commit", "off",
        "--json", json.toString())).isZero();
    assertThat(out.toString()).contains("group commit off");
    assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.toFile())
        .get("group_commit").asBoolean(true)).isFalse();
  }

  @Test
  void durationAndOpsTogetherAreRejected() {
    assertThat(lab("--duration", "1s", "--ops", "5")).isEqualTo(2);
    assertThat(err.toString()).contains("--duration 1s --ops 5");
  }

  @Test
  void aJsonPathInAMissingDirectoryIsRejectedBeforeRunning() {
    Path json = dir.resolve("no/such/dir/report.json");
    assertThat(lab("--ops", "10", "--json", json.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("does not exist");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void aFullRunPrintsTheTableWritesTheJsonAndExitsZeroWhenOnlyNaiveLoses() throws Exception {
    Path json = dir.resolve("lab.json");
    int status = lab("--mongo-uri", testUri(), "--strategies", "naive,atomic",
        "--clients", "16", "--docs", "1", "--ops", "1000", "--rounds", "1", "--warmup", "0s",
        "--json", json.toString());

    assertThat(status).as(err.toString()).isEqualTo(0);
    String table = out.toString();
    assertThat(table).contains("scenario readinfo", "16 clients", "1 hot document",
        "1,000 operations per strategy", "server: external MongoDB");
    assertThat(table).containsPattern("strategy +acked +lost +errors +ops/s +vs atomic +p50 ms"
        + " +p99 ms +max ms +conflicts +retries");
    assertThat(table).containsPattern("\\natomic +[\\d,]+ +0 +0 .* 1\\.00x ");
    assertThat(err.toString()).contains("lab: naive", "lab: atomic");

    JsonNode report = new ObjectMapper().readTree(json.toFile());
    assertThat(report.get("clients").asInt()).isEqualTo(16);
    assertThat(report.get("docs").asInt()).isEqualTo(1);
    assertThat(report.get("server").get("kind").asText()).isEqualTo("external");
    JsonNode naive = report.get("results").get(0);
    JsonNode atomic = report.get("results").get(1);
    assertThat(naive.get("strategy").asText()).isEqualTo("naive");
    assertThat(naive.get("lost_updates").asLong()).isPositive();
    assertThat(atomic.get("lost_updates").asLong()).isZero();
    assertThat(atomic.get("acknowledged").asLong()).isEqualTo(1000);
  }

  @Test
  void aLossInAStrategyThatShouldNotLoseExitsOne() {
    // naive's implementation, registered as if it were a safe strategy.
    LabStrategy<Mark> naive = ReadInfoScenario.entry().strategy("naive").orElseThrow();
    LabStrategy<Mark> careless = new LabStrategy<>("careless", false, "naive in disguise",
        naive.factory());
    Scenarios scenarios = new Scenarios(List.of(
        new ScenarioEntry<>(new ReadInfoScenario(), List.of(careless))));
    int status = run(new CommandLine(new LabCommand(scenarios)), "--mongo-uri", testUri(),
        "--clients", "16", "--docs", "1", "--ops", "1000", "--warmup", "0s");
    assertThat(status).isEqualTo(1);
    assertThat(err.toString()).contains("FAILED: careless lost");
  }

  @Test
  void aDatabaseThatDisappearsMidRunIsReportedWithExitThreeAndNoReport() throws Exception {
    Path json = dir.resolve("gone.json");
    EmbeddedMongo server = EmbeddedMongo.start();
    try {
      CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> lab(
          "--mongo-uri", server.uri(), "--strategies", "atomic", "--clients", "4",
          "--duration", "30s", "--warmup", "0s", "--json", json.toString()));
      Thread.sleep(1500);
      server.close();
      assertThat(status.get(30, TimeUnit.SECONDS)).as(err.toString()).isEqualTo(3);
    } finally {
      server.close();
    }
    assertThat(err.toString()).contains("MongoDB stopped answering", "'atomic'",
        "no report written");
    assertThat(out.toString()).doesNotContain("vs atomic");
    assertThat(json).doesNotExist();
  }

  @Test
  void helpListsEveryOption() {
    assertThat(lab("--help")).isEqualTo(0);
    assertThat(out.toString()).contains("--scenario", "--strategies", "--clients", "--duration",
        "--ops", "--docs", "--seed", "--warmup", "--json", "--mongo-uri");
    // The warm-up's rule as written, its "%" not taken for a format specifier.
    assertThat(out.toString().replaceAll("\\s+", " ")).contains("each less than 5% faster than"
        + " the one before), at least three slices", "--processes=N[,N...]");
  }

  @Test
  void severalProcessCountsWithSeveralClientCountsAreRejectedNamingBoth() {
    Path json = dir.resolve("report.json");
    assertThat(lab("--processes", "1,2", "--clients", "4,8", "--ops", "10", "--json",
        json.toString())).isEqualTo(2);
    assertThat(err.toString()).contains("give several --processes or several --clients, not"
        + " both (was --processes 1,2 --clients 4,8)");
    assertThat(out.toString()).isEmpty();
    assertThat(json).doesNotExist();
  }

  @Test
  void aListOfProcessCountsIsParsedInTheOrderGiven() {
    assertThat(ProcessCounts.parse(List.of("1", "2", "4"), List.of(16)))
        .containsExactly(1, 2, 4);
    assertThat(ProcessCounts.parse(List.of("4", "1"), List.of(4))).containsExactly(4, 1);
  }
}
