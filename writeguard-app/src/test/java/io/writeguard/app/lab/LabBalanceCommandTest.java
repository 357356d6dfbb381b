package io.writeguard.app.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.writeguard.app.Main;
import io.writeguard.testing.TestMongo;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code writeguard lab} with the counter and transfer scenarios, sweeps, rounds and HTML. */
class LabBalanceCommandTest {
  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private static String testUri() {
    String uri = TestMongo.uri();
    boolean hasPath = uri.substring(uri.indexOf("://") + 3).contains("/");
    return uri + (uri.contains("?") ? "&" : hasPath ? "?" : "/?") + "serverSelectionTimeoutMS=30000";
  }

  private int lab(String... args) {
    List<String> all = new ArrayList<>(List.of("lab"));
    all.addAll(List.of(args));
    var cl = Main.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    return cl.execute(all.toArray(String[]::new));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "--scenario counter --max-amount 0           | --max-amount must be >= 1, was 0",
      "--scenario counter --max-amount -5          | --max-amount must be >= 1, was -5",
      "--scenario transfer --max-amount 0          | --max-amount must be >= 1, was 0",
      "--scenario counter --balance -1             | --balance must be >= 0, was -1",
      "--scenario counter --shards 0               | --shards must be between 1 and 1000, was 0",
      "--scenario counter --strategies sharded-xyz | unknown strategy 'sharded-xyz' for scenario counter",
      "--scenario counter --strategies lock        | (known: naive, atomic, optimistic, sharded-fields, sharded-docs)",
      "--scenario counters                         | unknown scenario 'counters' (known: readinfo, counter, transfer)",
      "--scenario readinfo --balance 5             | --balance applies to scenarios counter and transfer only, not readinfo",
      "--scenario readinfo --shards 4              | --shards applies to scenarios counter and transfer only",
      "--scenario transfer --docs 1                | --docs must be between 2 and 1024 for scenario transfer, was 1",
      "--scenario counter --clients 4,0            | --clients must be between 1 and 1024, was 0",
      "--scenario counter --clients 4,4            | --clients lists 4 twice",
      "--scenario counter --clients 4,x            | 'x'",
      "--scenario counter --rounds 0               | --rounds must be between 1 and 100, was 0",
      "--scenario counter --html no/such/dir/r.html | does not exist",
  })
  void badInputExitsTwoWithOneLineNamingTheValueAndWritesNothing(String args, String named) {
    Path json = dir.resolve("r.json");
    List<String> all = new ArrayList<>(List.of(args.trim().split(" +")));
    all.addAll(List.of("--ops", "10", "--json", json.toString()));
    int status = lab(all.toArray(String[]::new));

    assertThat(status).as(err.toString()).isEqualTo(2);
    assertThat(err.toString().lines().filter(l -> !l.isBlank()).toList())
        .hasSize(1).first().asString().contains(named.trim());
    assertThat(out.toString()).isEmpty();
    assertThat(json).doesNotExist();
  }

  @Test
  void transferOnAStandaloneServerSaysWhyExitsFourAndWritesNoReport() {
    assumeThat(TestMongo.isEmbedded()).as("the embedded server is standalone").isTrue();
    Path json = dir.resolve("t.json");
    Path html = dir.resolve("t.html");
    int status = lab("--scenario", "transfer", "--mongo-uri", testUri(), "--ops", "10",
        "--json", json.toString(), "--html", html.toString());

    assertThat(status).isEqualTo(LabCommand.EXIT_UNSUPPORTED).isEqualTo(4);
    List<String> lines = err.toString().lines().filter(l -> !l.isBlank()).toList();
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0)).contains("scenario transfer cannot run on this server",
        "nothing measured", "STANDALONE", "replica set");
    assertThat(out.toString()).isEmpty();
    assertThat(json).doesNotExist();
    assertThat(html).doesNotExist();
  }

  @Test
  void aSingleCountKeepsTheFoundationShapeAndAddsTheCounterFigures() throws Exception {
    Path json = dir.resolve("one.json");
    int status = lab("--scenario", "counter", "--mongo-uri", testUri(), "--clients", "8",
        "--ops", "400", "--rounds", "1", "--warmup", "0s", "--json", json.toString());

    assertThat(status).as(err.toString()).isZero();
    JsonNode report = new ObjectMapper().readTree(json.toFile());
    assertThat(report.get("scenario").asText()).isEqualTo("counter");
    assertThat(report.get("clients").isInt()).isTrue();
    assertThat(report.get("clients").asInt()).isEqualTo(8);
    assertThat(report.get("docs").asInt()).isEqualTo(1);
    assertThat(report.get("rounds").asInt()).isEqualTo(1);
    assertThat(report.has("sweep")).isFalse();
    assertThat(report.get("balances").get("initial_balance").asLong()).isEqualTo(100);
    assertThat(report.get("balances").get("max_amount").asLong()).isEqualTo(10);
    assertThat(report.get("balances").get("shards").asInt()).isEqualTo(10);
    List<String> strategies = new ArrayList<>();
    for (JsonNode r : report.get("results")) {
      strategies.add(r.get("strategy").asText());
      List<String> names = new ArrayList<>();
      r.fieldNames().forEachRemaining(names::add);
      assertThat(names).containsSubsequence("strategy", "acknowledged", "lost_updates",
          "errors", "throughput_ops_s", "latency_ms", "conflict_ratio", "retries",
          "final_total", "expected_total", "min_total");
      assertThat(r.get("min_total").asLong()).isGreaterThanOrEqualTo(0);
      if (!r.get("strategy").asText().equals("naive")) {
        assertThat(r.get("final_total").asLong()).isEqualTo(r.get("expected_total").asLong());
        assertThat(r.get("lost_updates").asLong()).isZero();
      }
    }
    assertThat(strategies)
        .containsExactly("naive", "atomic", "optimistic", "sharded-fields", "sharded-docs");
    assertThat(out.toString()).contains("scenario counter", "final_total", "min_total",
        "throughput vs atomic", "final total = expected total: atomic, optimistic,"
            + " sharded-fields, sharded-docs", "(never negative)");
  }

  @Test
  void aSweepListsEveryClientCountAndKeepsTheLastAsTheMainResult() throws Exception {
    Path json = dir.resolve("sweep.json");
    Path html = dir.resolve("sweep.html");
    int status = lab("--scenario", "counter", "--strategies", "atomic,sharded-docs",
        "--mongo-uri", testUri(), "--clients", "1,4", "--ops", "200", "--rounds", "1",
        "--warmup", "0s",
        "--json", json.toString(), "--html", html.toString());

    assertThat(status).as(err.toString()).isZero();
    JsonNode report = new ObjectMapper().readTree(json.toFile());
    JsonNode sweep = report.get("sweep");
    assertThat(sweep.size()).isEqualTo(2);
    assertThat(sweep.get(0).get("clients").asInt()).isEqualTo(1);
    assertThat(sweep.get(1).get("clients").asInt()).isEqualTo(4);
    for (JsonNode point : sweep) {
      assertThat(point.get("results").size()).isEqualTo(2);
      assertThat(point.get("results").get(0).get("strategy").asText()).isEqualTo("atomic");
      assertThat(point.get("results").get(1).get("strategy").asText()).isEqualTo("sharded-docs");
      point.get("results").forEach(r -> {
        assertThat(r.get("acknowledged").asLong()).isEqualTo(200);
        assertThat(r.get("lost_updates").asLong()).isZero();
      });
    }
    assertThat(report.get("clients").asInt()).isEqualTo(4);
    assertThat(report.get("results")).isEqualTo(sweep.get(1).get("results"));
    assertThat(out.toString()).contains("1,4 clients", "1 clients:", "4 clients:",
        "at 1 clients", "at 4 clients");
    // Progress lines say which client count they belong to.
    assertThat(err.toString()).contains("lab: atomic", "(1 clients)", "(4 clients)");
    String page = Files.readString(html);
    assertThat(page).contains("<canvas id=\"chart-throughput\"", "\"sweep\":[");
  }

  @Test
  void roundsAreInterleavedAndFoldedIntoMedians() throws Exception {
    Path json = dir.resolve("rounds.json");
    int status = lab("--scenario", "counter", "--strategies", "atomic,sharded-fields",
        "--mongo-uri", testUri(), "--clients", "4", "--ops", "100", "--rounds", "3",
        "--warmup", "0s", "--json", json.toString());

    assertThat(status).as(err.toString()).isZero();
    JsonNode report = new ObjectMapper().readTree(json.toFile());
    assertThat(report.get("rounds").asInt()).isEqualTo(3);
    for (JsonNode r : report.get("results")) {
      assertThat(r.get("acknowledged").asLong()).isEqualTo(300);
      assertThat(r.get("throughput_by_round").size()).isEqualTo(3);
      assertThat(r.get("p99_ms_by_round").size()).isEqualTo(3);
      assertThat(r.get("final_total").asLong()).isEqualTo(r.get("expected_total").asLong());
    }
    // Interleaved round by round, every other round in reverse so a drift favours neither.
    List<String> order = err.toString().lines().filter(l -> l.startsWith("lab: "))
        .map(l -> l.substring(5, l.indexOf(' ', 5))).toList();
    assertThat(order).containsExactly("atomic", "sharded-fields", "sharded-fields", "atomic",
        "atomic", "sharded-fields");
    assertThat(err.toString()).contains("(round 1/3)", "(round 3/3)");
  }

  @Test
  void helpNamesTheNewOptionsAndExitStatusFour() {
    assertThat(lab("--help")).isZero();
    assertThat(out.toString()).contains("--rounds", "--html", "--balance", "--max-amount",
        "--shards", "4 the scenario cannot run on this server");
  }

  @Test
  void withoutRoundsTheLabRunsThreeInterleavedRoundsAndShowsItsPlanAndTheTimeLeft()
      throws Exception {
    Path json = dir.resolve("default-rounds.json");
    int status = lab("--scenario", "counter", "--strategies", "atomic,sharded-fields",
        "--mongo-uri", testUri(), "--clients", "4", "--ops", "100", "--warmup", "0s",
        "--json", json.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(new ObjectMapper().readTree(json.toFile()).get("rounds").asInt()).isEqualTo(3);
    assertThat(out.toString()).contains("100 operations per strategy and round",
        "3 interleaved rounds per strategy", "plan: 2 strategies x 3 rounds = 6 measured")
        .doesNotContain("single round is noisy");
    List<String> done = err.toString().lines().filter(l -> l.startsWith("lab: ")).toList();
    assertThat(done).hasSize(6);
    // Counted rounds: the time left is known once the first round has taken its time.
    assertThat(done.get(0)).contains("(round 1/3) -- strategy 1 of 2, about ");
    assertThat(done.get(5)).endsWith("(round 3/3) -- strategy 2 of 2, about 0s left");
  }

  @Test
  void aSingleRoundIsRunWhenAskedForWithAWarningThatItIsNoisy() {
    int status = lab("--scenario", "counter", "--strategies", "atomic", "--mongo-uri",
        testUri(), "--clients", "2", "--ops", "50", "--rounds", "1", "--warmup", "0s");

    assertThat(status).as(err.toString()).isZero();
    assertThat(out.toString()).contains("a single round is noisy",
        "plan: 1 strategy x 1 round = 1 measured", "50 operations per strategy after");
  }
}
